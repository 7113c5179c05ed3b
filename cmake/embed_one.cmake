# Writes one embedded file as a byte array (script mode: IN, OUT, IDENT, NS).
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "// Generated from ${IN}. Do not edit.\n#include <string_view>\nnamespace ${NS} {\nnamespace {\nconst unsigned char kData[] = {${bytes} 0x00};\n}\nextern const std::string_view ${IDENT};\nconst std::string_view ${IDENT}(reinterpret_cast<const char*>(kData), ${size});\n}\n")
