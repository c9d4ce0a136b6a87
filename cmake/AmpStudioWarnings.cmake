# Warnings for the project's own targets (not for imported ones).
function(ampstudio_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()

# Embeds a text file as `extern const char* const <symbol>` in a generated .cpp file.
function(ampstudio_embed_text target input symbol)
  get_filename_component(name "${input}" NAME_WE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${name}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${out} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake"
    DEPENDS "${input}" "${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake"
    COMMENT "Embedding ${name}")
  target_sources(${target} PRIVATE "${out}")
endfunction()
