#ifndef CSYSTEM_CRYPTO_H
#define CSYSTEM_CRYPTO_H

#endif
