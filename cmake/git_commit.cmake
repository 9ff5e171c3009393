# Run at every build (target heptane_git_commit): writes OUT, a header with the source tree's
# commit: the HEPTANE_GIT_COMMIT environment variable where it is set (a copy of the tree whose
# .git is not its own, as on the device tool's machine), else git's ("<sha>", "<sha>-dirty"
# with uncommitted changes to tracked files), else "unknown"; touching it only when it changes.
set(rc 1)
if(NOT DEFINED ENV{HEPTANE_GIT_COMMIT})
  execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse HEAD
                  OUTPUT_VARIABLE commit RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(rc EQUAL 0)
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
elseif(DEFINED ENV{HEPTANE_GIT_COMMIT})
  set(commit "$ENV{HEPTANE_GIT_COMMIT}")
else()
  set(commit "unknown")
endif()
file(WRITE "${OUT}.tmp" "#pragma once
// Generated at build time by cmake/git_commit.cmake; do not edit.
namespace heptane {
constexpr const char* kGitCommit = \"${commit}\";
}  // namespace heptane
")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY)
