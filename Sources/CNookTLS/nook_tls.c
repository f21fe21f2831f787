// nook-http's TLS: a server context and sessions on non-blocking sockets, kept to what a poll
// loop needs (reads and writes that say what they wait for, the bytes OpenSSL holds); and a
// client context and blocking sessions for the icon fetcher's HTTPS GETs.
#include "nook_tls.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nook_tls_context { SSL_CTX *ctx; };
struct nook_tls_session { SSL *ssl; int notified; };

static void fail(nook_tls_error *error, const char *call, const char *subject) {
    unsigned long code = ERR_get_error();
    char reason[160] = "";
    if (code) {
        ERR_error_string_n(code, reason, sizeof reason);
    } else if (errno) {
        snprintf(reason, sizeof reason, "(%d) %s", errno, strerror(errno));
    } else {
        snprintf(reason, sizeof reason, "no reason given");
    }
    ERR_clear_error();
    if (subject) {
        snprintf(error->text, sizeof error->text, "'%s' failed for %s: %s", call, subject, reason);
    } else {
        snprintf(error->text, sizeof error->text, "'%s' failed: %s", call, reason);
    }
}

// The context and session that own `ctx` and `ssl`, which are freed if there is no memory for them.
static nook_tls_context *wrapped_context(SSL_CTX *ctx, nook_tls_error *error) {
    nook_tls_context *context = calloc(1, sizeof *context);
    if (!context) { SSL_CTX_free(ctx); snprintf(error->text, sizeof error->text, "'calloc' failed"); return NULL; }
    context->ctx = ctx;
    return context;
}

static nook_tls_session *wrapped_session(SSL *ssl, nook_tls_error *error) {
    nook_tls_session *session = calloc(1, sizeof *session);
    if (!session) { SSL_free(ssl); snprintf(error->text, sizeof error->text, "'calloc' failed"); return NULL; }
    session->ssl = ssl;
    return session;
}

nook_tls_context *nook_tls_context_new(const char *certificate, const char *key, nook_tls_error *error) {
    ERR_clear_error();
    errno = 0;
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) { fail(error, "SSL_CTX_new", NULL); return NULL; }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // Partial writes: a write takes what the socket takes, as send(2) does; the buffer a retry
    // passes may have moved (Swift arrays do).
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    // A client that closes without close_notify (most HTTP clients) has ended, not failed.
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (SSL_CTX_use_certificate_chain_file(ctx, certificate) != 1) {
        fail(error, "SSL_CTX_use_certificate_chain_file", certificate);
        SSL_CTX_free(ctx);
        return NULL;
    }
    errno = 0;
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        fail(error, "SSL_CTX_use_PrivateKey_file", key);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        fail(error, "SSL_CTX_check_private_key", key);
        SSL_CTX_free(ctx);
        return NULL;
    }
    return wrapped_context(ctx, error);
}

void nook_tls_context_free(nook_tls_context *context) {
    if (!context) return;
    SSL_CTX_free(context->ctx);
    free(context);
}

nook_tls_session *nook_tls_session_new(nook_tls_context *context, int fd, nook_tls_error *error) {
    ERR_clear_error();
    errno = 0;
    SSL *ssl = SSL_new(context->ctx);
    if (!ssl) { fail(error, "SSL_new", NULL); return NULL; }
    if (SSL_set_fd(ssl, fd) != 1) { fail(error, "SSL_set_fd", NULL); SSL_free(ssl); return NULL; }
    SSL_set_accept_state(ssl);
    return wrapped_session(ssl, error);
}

void nook_tls_session_free(nook_tls_session *session) {
    if (!session) return;
    SSL_free(session->ssl);
    free(session);
}

static long outcome(nook_tls_session *session, int result, const char *call, nook_tls_error *error) {
    switch (SSL_get_error(session->ssl, result)) {
    case SSL_ERROR_WANT_READ: return NOOK_TLS_WANT_READ;
    case SSL_ERROR_WANT_WRITE: return NOOK_TLS_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: return NOOK_TLS_CLOSED;
    case SSL_ERROR_SYSCALL:
        // EOF without close_notify (errno 0) is an ended connection, as read(2)'s 0 is.
        if (errno == 0 && ERR_peek_error() == 0) return NOOK_TLS_CLOSED;
        fail(error, call, NULL);
        return NOOK_TLS_FAILED;
    default:
        fail(error, call, NULL);
        return NOOK_TLS_FAILED;
    }
}

long nook_tls_read(nook_tls_session *session, void *buffer, size_t count, nook_tls_error *error) {
    ERR_clear_error();
    errno = 0;
    size_t done = 0;
    int result = SSL_read_ex(session->ssl, buffer, count, &done);
    if (result == 1) return (long)done;
    return outcome(session, result, "SSL_read_ex", error);
}

long nook_tls_write(nook_tls_session *session, const void *buffer, size_t count, nook_tls_error *error) {
    ERR_clear_error();
    errno = 0;
    size_t done = 0;
    int result = SSL_write_ex(session->ssl, buffer, count, &done);
    if (result == 1) return (long)done;
    return outcome(session, result, "SSL_write_ex", error);
}

int nook_tls_pending(nook_tls_session *session) { return SSL_pending(session->ssl); }

void nook_tls_close_notify(nook_tls_session *session) {
    if (session->notified || !SSL_is_init_finished(session->ssl)) return;
    session->notified = 1;
    ERR_clear_error();
    (void)SSL_shutdown(session->ssl);
    ERR_clear_error();
}

nook_tls_context *nook_tls_client_context_new(nook_tls_error *error) {
    ERR_clear_error();
    errno = 0;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) { fail(error, "SSL_CTX_new", NULL); return NULL; }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
    // Many servers close without close_notify once the body is sent (Connection: close).
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        fail(error, "SSL_CTX_set_default_verify_paths", NULL);
        SSL_CTX_free(ctx);
        return NULL;
    }
    return wrapped_context(ctx, error);
}

nook_tls_session *nook_tls_client_session_new(nook_tls_context *context, int fd, const char *host, nook_tls_error *error) {
    ERR_clear_error();
    errno = 0;
    SSL *ssl = SSL_new(context->ctx);
    if (!ssl) { fail(error, "SSL_new", NULL); return NULL; }
    if (SSL_set_fd(ssl, fd) != 1) { fail(error, "SSL_set_fd", NULL); SSL_free(ssl); return NULL; }
    // An IP address is checked against the certificate's IP entries and sent without SNI
    // (RFC 6066 names hosts only); a name is both the SNI and the name checked.
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    int isAddress = X509_VERIFY_PARAM_set1_ip_asc(param, host) == 1;
    ERR_clear_error();
    if (!isAddress) {
        if (SSL_set_tlsext_host_name(ssl, host) != 1 || SSL_set1_host(ssl, host) != 1) {
            fail(error, "SSL_set1_host", host);
            SSL_free(ssl);
            return NULL;
        }
    }
    SSL_set_connect_state(ssl);
    errno = 0;
    int result = SSL_connect(ssl);
    if (result != 1) {
        long verified = SSL_get_verify_result(ssl);
        if (verified != X509_V_OK) {
            ERR_clear_error();
            snprintf(error->text, sizeof error->text, "'SSL_connect' failed for %s: the certificate was refused: %s", host,
                     X509_verify_cert_error_string(verified));
        } else if (SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ || SSL_get_error(ssl, result) == SSL_ERROR_WANT_WRITE) {
            // A blocking socket's SO_RCVTIMEO or SO_SNDTIMEO ran out: the server said nothing in time.
            ERR_clear_error();
            snprintf(error->text, sizeof error->text, "'SSL_connect' failed for %s: timed out waiting for the server", host);
        } else if (SSL_get_error(ssl, result) == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
            snprintf(error->text, sizeof error->text, "'SSL_connect' failed for %s: %s", host,
                     errno ? strerror(errno) : "the server closed the connection");
        } else {
            fail(error, "SSL_connect", host);
        }
        SSL_free(ssl);
        return NULL;
    }
    return wrapped_session(ssl, error);
}

const char *nook_tls_library_version(void) { return OpenSSL_version(OPENSSL_VERSION); }
