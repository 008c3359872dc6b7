#include "CSystem.h"

static int CSystem_refuse_passphrase(char *buf, int size, int rwflag, void *userdata) {
    (void)buf; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

EVP_PKEY *CSystem_PEM_read_PrivateKey_no_passphrase(BIO *bio) {
    return PEM_read_bio_PrivateKey(bio, NULL, CSystem_refuse_passphrase, NULL);
}

int CSystem_X509_NAME_print_rfc2253(BIO *bio, const X509_NAME *name) {
    return X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
}
