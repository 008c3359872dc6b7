#ifndef CSYSTEM_APNS_SIM_H
#define CSYSTEM_APNS_SIM_H

#endif
