/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo.h: the public interface of the cuckoo SQLite extension.
**
** A program that links the extension statically (libcuckoo.a, built with
** -DSQLITE_CORE) registers it on every connection it opens with
**
**     #include <sqlite3.h>
**     #include <cuckoo.h>
**     sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
**
** and a loadable build (cuckoo.so) exports sqlite3_cuckoo_init as its only
** symbol.  CUCKOO_VERSION is the one source of the version number:
** cuckoo_version() returns it.
*/
#ifndef CUCKOO_H
#define CUCKOO_H

#define CUCKOO_VERSION "0.1.0"
#define CUCKOO_VERSION_NUMBER 1000 /* major*1000000 + minor*1000 + patch */

#ifdef __cplusplus
extern "C" {
#endif

/* The entry point keeps default visibility in a build with
** -fvisibility=hidden: it is the one symbol cuckoo.so exports. */
#ifndef CUCKOO_API
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER)
#define CUCKOO_API __attribute__((visibility("default")))
#else
#define CUCKOO_API
#endif
#endif

struct sqlite3;
struct sqlite3_api_routines;

/* The entry point: registers every function, aggregate and the cuckoo
** virtual table module on db.  Returns SQLITE_OK, or an error code with
** *pzErrMsg (when pzErrMsg is not NULL) an sqlite3_malloc()ed message. */
CUCKOO_API int sqlite3_cuckoo_init(struct sqlite3 *db, char **pzErrMsg,
                                   const struct sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif

#endif /* CUCKOO_H */
