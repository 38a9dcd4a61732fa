// libpq's declarations (Debian libpq-dev). Only the types and constants are used at build
// time: the functions are looked up with dlopen when a PostgreSQL store is opened (LibPQ.swift),
// so the binary does not link libpq.
#ifndef TABULA_LIBPQ_SHIM_H
#define TABULA_LIBPQ_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
