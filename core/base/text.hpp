#pragma once
/// @file Text from an input, quoted for an error message (issue 19, class 7): control bytes
/// and bytes that are not UTF-8 are written as \xNN, and long text is clipped, so a binary file
/// or a 300-digit number gives a one-line message.
#include <cstddef>
#include <string>
#include <string_view>

namespace heptane {

/// 's' in single quotes, at most `max_chars` characters of it, then "..." when clipped.
inline std::string quote_input(std::string_view s, std::size_t max_chars = 40) {
    static const char* const kHex = "0123456789abcdef";
    std::string out = "'";
    std::size_t chars = 0, i = 0;
    for (; i < s.size() && chars < max_chars; ++chars) {
        const auto c = static_cast<unsigned char>(s[i]);
        // A well-formed UTF-8 sequence (2 to 4 bytes) is kept as it is.
        const std::size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 1;
        bool utf8 = c >= 0xc2 && c < 0xf5 && i + len <= s.size();
        for (std::size_t k = 1; utf8 && k < len; ++k)
            utf8 = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
        if (utf8) {
            out.append(s.substr(i, len));
            i += len;
        } else if (c < 0x20 || c >= 0x7f) {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
            ++i;
        } else {
            out += static_cast<char>(c);
            ++i;
        }
    }
    out += "'";
    if (i < s.size()) out += "...";
    return out;
}

}  // namespace heptane
