#pragma once
/// @file Unit conversions. The deck is in field or metric units; app/ converts every value
/// to SI once, at the deck boundary, and the physics (grid/, wells/) works in SI only.
///
/// The *solved* unknowns and equations are scaled so the Jacobian is well balanced: pressure
/// unknowns are in bar (kPressureScale Pa), saturations are fractions, cell and rate-well
/// equations are surface volume rates in m^3/day (mass rate / surface density * kTimeScale;
/// B = 1 makes them volumes at the reference pressure) and BHP-well equations are in bar. In SI a pressure column (1/Pa) would be
/// ~1e-6 of a saturation column; in bar they are of comparable size.
namespace heptane::units {

// ---- conversions to SI -----------------------------------------------------------------
constexpr double kFoot = 0.3048;                       // m
constexpr double kPsi = 6894.757293168361;             // Pa
constexpr double kBar = 1.0e5;                         // Pa
constexpr double kAtmosphere = 101325.0;               // Pa
constexpr double kMilliDarcy = 9.869232667160129e-16;  // m^2
constexpr double kCentiPoise = 1.0e-3;                 // Pa s
constexpr double kPoundPerCubicFoot = 16.01846337396;  // kg/m^3
constexpr double kStockTankBarrel = 0.158987294928;    // m^3
constexpr double kDay = 86400.0;                       // s
constexpr double kGravity = 9.80665;                   // m/s^2

// ---- scaling of the linear system (see file comment) ------------------------------------
constexpr double kPressureScale = kBar;  // Pa per unit of a pressure unknown
constexpr double kTimeScale = kDay;      // s per unit of time in the scaled equations

}  // namespace heptane::units
