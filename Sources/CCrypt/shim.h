#ifndef CCRYPT_SHIM_H
#define CCRYPT_SHIM_H

#include <crypt.h>

#endif
