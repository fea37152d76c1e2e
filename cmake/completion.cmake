# cmake -DREVPERF=<revperf> -DOUT=<file> -P completion.cmake: the bash completion that
# `revperf help --bash-completion` prints, into OUT (CMakeLists.txt, docs/install.md).
execute_process(COMMAND "${REVPERF}" help --bash-completion OUTPUT_FILE "${OUT}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "${REVPERF} help --bash-completion failed (${rc})")
endif()
