# Writes OUTPUT, a header defining PREFLIGHT_REVISION: the git commit the build
# comes from (12 hex digits, "-dirty" when tracked files differ from it), or
# "unknown" outside a git checkout (a source tarball). Run at every build by the
# preflight_revision target; the file is rewritten only when the revision
# changes, so an unchanged revision recompiles nothing.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P git_revision.cmake
set(revision "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE head_status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(head_status EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(revision "${head}")
    # Stat data refreshed first, so a file touched but unchanged is not "dirty".
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" update-index -q --refresh
                    OUTPUT_QUIET ERROR_QUIET)
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" diff-index --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND revision "-dirty")
    endif()
  endif()
endif()
set(content "#pragma once\n#define PREFLIGHT_REVISION \"${revision}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
endif()
if(NOT "${previous}" STREQUAL "${content}")
  file(WRITE "${OUTPUT}" "${content}")
endif()
