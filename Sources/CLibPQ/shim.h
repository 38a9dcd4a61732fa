// libpq, the PostgreSQL C client library (Debian libpq-dev).
#ifndef TABULA_LIBPQ_SHIM_H
#define TABULA_LIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
