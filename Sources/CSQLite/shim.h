// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot
// import; these shims bind text and blobs with it (SQLite copies the bytes).
#ifndef TABULA_SQLITE_SHIM_H
#define TABULA_SQLITE_SHIM_H

#include <sqlite3.h>

static inline int tabula_sqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int tabula_sqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
