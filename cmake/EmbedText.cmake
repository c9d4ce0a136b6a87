# cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P EmbedText.cmake
file(READ "${INPUT}" content)
string(FIND "${content}" ")ampstudio_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\n"
  "namespace amp::embedded {\nextern const char* const ${SYMBOL};\n"
  "const char* const ${SYMBOL} = R\"ampstudio_embed(${content})ampstudio_embed\";\n}\n")
