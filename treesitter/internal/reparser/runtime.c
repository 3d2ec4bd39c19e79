// The tree-sitter runtime copied in runtime/ (see doc.go), compiled as one
// unit as tree-sitter's own lib.c does, with every external symbol renamed
// (rename.h). gen_rename.sh compiles this file with HASHLS_NO_RENAME to
// list those symbols.
#ifndef HASHLS_NO_RENAME
#include "rename.h"
#endif
#define _POSIX_C_SOURCE 200112L

#include "runtime/alloc.c"
#include "runtime/get_changed_ranges.c"
#include "runtime/language.c"
#include "runtime/lexer.c"
#include "runtime/node.c"
#include "runtime/parser.c"
#include "runtime/stack.c"
#include "runtime/subtree.c"
#include "runtime/tree.c"
#include "runtime/tree_cursor.c"
#include "runtime/wasm_store.c"
