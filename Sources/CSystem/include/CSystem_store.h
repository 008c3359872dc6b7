#ifndef CSYSTEM_STORE_H
#define CSYSTEM_STORE_H

#endif
