// nook-http's TLS through OpenSSL, as a few calls Swift can make (OpenSSL's own API is mostly
// macros Swift cannot import). Only NookHTTP includes it. Every failing call fills `error` with
// the call's name and OpenSSL's reason.
#ifndef NOOK_TLS_H
#define NOOK_TLS_H

#include <stddef.h>

typedef struct nook_tls_context nook_tls_context;
typedef struct nook_tls_session nook_tls_session;

typedef struct {
    char text[256];
} nook_tls_error;

/// What a read or a write did when it moved no bytes.
enum {
    NOOK_TLS_WANT_READ = -1,
    NOOK_TLS_WANT_WRITE = -2,
    NOOK_TLS_FAILED = -3,
    /// The peer ended the session (close_notify) or the connection: nothing more comes.
    NOOK_TLS_CLOSED = -4,
};

/// A server context with the certificate chain and private key (PEM files): NULL and `error`
/// when either cannot be read or they do not match.
nook_tls_context *nook_tls_context_new(const char *certificate, const char *key, nook_tls_error *error);
void nook_tls_context_free(nook_tls_context *context);

/// A server session on an accepted, non-blocking socket; the handshake runs inside the first
/// reads and writes.
nook_tls_session *nook_tls_session_new(nook_tls_context *context, int fd, nook_tls_error *error);
void nook_tls_session_free(nook_tls_session *session);

/// Bytes read (> 0), or one of the NOOK_TLS_ values.
long nook_tls_read(nook_tls_session *session, void *buffer, size_t count, nook_tls_error *error);
/// Bytes written (> 0), or one of the NOOK_TLS_ values. A write that wanted to be retried may be
/// retried with other bytes (moving-buffer mode) and takes part of what it is given.
long nook_tls_write(nook_tls_session *session, const void *buffer, size_t count, nook_tls_error *error);
/// Decrypted bytes held by OpenSSL that a poll of the socket would not announce.
int nook_tls_pending(nook_tls_session *session);
/// Sends close_notify, once, without waiting for the peer's.
void nook_tls_close_notify(nook_tls_session *session);
/// A client context that verifies servers against the system's trust store (OpenSSL's default
/// paths: /etc/ssl/certs, or $SSL_CERT_FILE and $SSL_CERT_DIR where set), TLS 1.2 at least.
nook_tls_context *nook_tls_client_context_new(nook_tls_error *error);

/// A client session on a connected, blocking socket: SNI and the certificate's name checked
/// against `host` (a DNS name or an IP address), the handshake done before it returns. NULL and
/// `error` (naming the verification's reason when the certificate was refused) otherwise.
nook_tls_session *nook_tls_client_session_new(nook_tls_context *context, int fd, const char *host, nook_tls_error *error);

/// OpenSSL's version, for the log.
const char *nook_tls_library_version(void);

#endif
