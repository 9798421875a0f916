# cmake -DVKSTARK=<vkstark executable> -DDIR=<scratch dir> -DEXECUTOR=cpu|vulkan -DAIR=fibonacci|keccakf
#       -P check_vkstark_command.cmake
#
# The vkstark command end to end (cli/vkstark.cpp): prove writes a proof file and a vk file; verify
# accepts it (alone and with --vk), info prints its shape; verify rejects (exit status 1, printing
# the rejection's code) the file with one proof byte changed and a proof made for another key
# (--vk), and refuses (exit status 3) a truncated file, a file of another kind and a missing file;
# info reads the vk file too.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")
set(proof "${DIR}/${AIR}.vkp")
set(vk "${DIR}/${AIR}.vk")

include(${CMAKE_CURRENT_LIST_DIR}/vkstark_run.cmake)  # run(<exit status> <expected texts> <args>...)

if(AIR STREQUAL "keccakf")
  set(size --permutations 2)
  set(other fibonacci --rows 64)
else()
  set(size --rows 64)
  set(other keccakf --permutations 1)
endif()
run(0 "wrote ${proof}" prove --air ${AIR} ${size} --params test --executor ${EXECUTOR} --out "${proof}" --vk-out "${vk}")
run(0 "accepted: " verify "${proof}")
run(0 "accepted: " verify "${proof}" --vk "${vk}")
run(0 "proof: " info "${proof}")

# One byte of the proof (its last, the high byte of a WHIR final_poly value) changed: rejected, by
# the decoder for 0xff (no field element) and by WHIR's checks for a zero.
file(SIZE "${proof}" size)
math(EXPR last "${size} - 1")
set(tampered "${DIR}/tampered.vkp")
file(COPY_FILE "${proof}" "${tampered}")
file(READ "${proof}" byte OFFSET ${last} LIMIT 1 HEX)
if(byte STREQUAL "00")  # write 0xff over a zero, a zero over anything else
  set(source "printf '\\377'")
  set(code "decode.not_a_field_element")
else()
  set(source "head -c 1 /dev/zero")
  set(code "whir.")
endif()
execute_process(COMMAND sh -c "${source} | dd of='${tampered}' bs=1 seek=${last} count=1 conv=notrunc"
                RESULT_VARIABLE rc ERROR_QUIET)
file(SHA256 "${proof}" a)
file(SHA256 "${tampered}" b)
if(NOT rc STREQUAL "0" OR a STREQUAL b)
  message(FATAL_ERROR "could not change the last byte of ${tampered}")
endif()
run(1 "rejected [${code}" verify "${tampered}")

# The proof file checked against another key: rejected.
set(other_proof "${DIR}/other.vkp")
set(other_vk "${DIR}/other.vk")
run(0 "wrote" prove --air ${other} --params test --executor cpu --out "${other_proof}" --vk-out "${other_vk}")
run(1 "rejected [proof.verifying_key_mismatch]: the proof file's verifying key" verify "${proof}" --vk "${other_vk}")

# Not a readable proof file: exit status 3, and the reason.
set(truncated "${DIR}/truncated.vkp")
file(COPY_FILE "${proof}" "${truncated}")
execute_process(COMMAND truncate -s ${last} "${truncated}" RESULT_VARIABLE rc)
run(3 "bytes left" verify "${truncated}")
run(3 "not a vkstark proof file" verify "${vk}")
run(0 "vkstark vk file" info "${vk}")
run(3 "cannot read" verify "${DIR}/missing.vkp")
run(3 "cannot read" verify "${proof}" --vk "${DIR}/missing.vk")
