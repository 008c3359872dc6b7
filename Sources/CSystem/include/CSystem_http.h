#ifndef CSYSTEM_HTTP_H
#define CSYSTEM_HTTP_H

#endif
