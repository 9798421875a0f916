# cmake -DVKSTARK=<vkstark executable> -DDIR=<scratch dir> -DEXECUTOR=cpu|vulkan
#       -DAIR=fibonacci|keccakf|interactions -P check_data_prove.cmake
#
# AIRs given as data through the vkstark command (issue 40's acceptance): `keygen` writes the vk
# file, `trace` the proving input, `prove --vk --input` proves them with no AIR code, and the proof
# file has the bytes of `prove --air` for the same computation and params; `verify` accepts both,
# and `info` reads the bare vk file. Then what must fail, with the exit status and a message naming
# what is wrong: an input for another key (the AIR count; a common main width, naming the AIR), a vk file given as the input, an input
# given as the vk, a missing file, options that do not apply with --vk.
file(REMOVE_RECURSE "${DIR}")
file(MAKE_DIRECTORY "${DIR}")

include(${CMAKE_CURRENT_LIST_DIR}/vkstark_run.cmake)  # run(<exit status> <expected texts> <args>...)

if(AIR STREQUAL "keccakf")
  set(size --permutations 8)
else()
  set(size --rows 1024)
endif()
# A key of another AIR count, and one of one AIR of another width.
if(AIR STREQUAL "interactions")
  set(other fibonacci)
  set(other_width "")
else()
  set(other interactions)
  if(AIR STREQUAL "keccakf")
    set(other_width fibonacci)
  else()
    set(other_width keccakf)
  endif()
endif()
set(vk "${DIR}/${AIR}.vk")
set(input "${DIR}/${AIR}.vki")
set(a "${DIR}/a.vkp")
set(b "${DIR}/b.vkp")
run(0 "wrote ${vk}" keygen --air ${AIR} --params test --executor ${EXECUTOR} --out "${vk}")
run(0 "wrote ${input}" trace --air ${AIR} ${size} --out "${input}")
run(0 "given as data" prove --vk "${vk}" --input "${input}" --executor ${EXECUTOR} --out "${a}")
run(0 "wrote ${b}" prove --air ${AIR} ${size} --params test --executor ${EXECUTOR} --out "${b}")
file(SHA256 "${a}" sha_a)
file(SHA256 "${b}" sha_b)
if(NOT sha_a STREQUAL sha_b)
  message(FATAL_ERROR "the proof file from --vk --input differs from the one of --air ${AIR}")
endif()
run(0 "accepted: " verify "${a}" --vk "${vk}")
run(0 "accepted: " verify "${b}" --vk "${vk}")
run(0 "vkstark vk file" info "${vk}")

# Inputs that do not fit: another key's, files of the wrong kind, missing files.
set(other_vk "${DIR}/other.vk")
run(0 "wrote" keygen --air ${other} --params test --executor cpu --out "${other_vk}")
run(1 "it is not an input for this key" prove --vk "${other_vk}" --input "${input}" --executor cpu --out "${DIR}/x.vkp")
if(other_width)
  run(0 "wrote" keygen --air ${other_width} --params test --executor cpu --out "${DIR}/width.vk")
  run(1 "AIR 0 (" prove --vk "${DIR}/width.vk" --input "${input}" --executor cpu --out "${DIR}/x.vkp")
endif()
run(3 "not a vkstark proving input" prove --vk "${vk}" --input "${vk}" --executor cpu --out "${DIR}/x.vkp")
run(3 "not a vkstark verifying key" prove --vk "${input}" --input "${input}" --executor cpu --out "${DIR}/x.vkp")
run(3 "cannot read" prove --vk "${DIR}/missing.vk" --input "${input}" --executor cpu --out "${DIR}/x.vkp")
run(3 "cannot read" prove --vk "${vk}" --input "${DIR}/missing.vki" --executor cpu --out "${DIR}/x.vkp")
run(2 "--vk needs --input INPUT" prove --vk "${vk}" --out "${DIR}/x.vkp")
run(2 "--params does not apply with --vk" prove --vk "${vk}" --input "${input}" --params test --out "${DIR}/x.vkp")
if(EXISTS "${DIR}/x.vkp")
  message(FATAL_ERROR "a failed prove wrote ${DIR}/x.vkp")
endif()
