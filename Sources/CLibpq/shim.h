#ifndef DROPCUT_CLIBPQ_SHIM_H
#define DROPCUT_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
