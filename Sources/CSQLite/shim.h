// The system SQLite, with the pre-update hook's declarations visible
// (Debian's libsqlite3 is built with SQLITE_ENABLE_PREUPDATE_HOOK).
#ifndef TESSERA_CSQLITE_SHIM_H
#define TESSERA_CSQLITE_SHIM_H
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
#endif
