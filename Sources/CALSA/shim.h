// The one C entry point for alsa-lib (Debian libasound2-dev). Only NookAudio imports it (internal import).
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// alsa-lib's messages about a failure (`Unknown PCM nosuch`), which it would otherwise print on
// standard error beside Nook's own line, caught per thread (snd_lib_error_set_local) so one
// failure is one log line with alsa-lib's words in it. In C because the handler takes a va_list,
// which Swift 6.0.3 cannot lower in a closure on arm64 (it crashes compiling one).
// The calling thread's last message and whether there is one: statics inside a function, which
// clang emits with the function (Swift's importer emits no file-scope static of a header).
static inline char *nook_alsa_thread_message(int **present) {
    static __thread char message[512];
    static __thread int has;
    *present = &has;
    return message;
}

static void nook_alsa_local_error(const char *file, int line, const char *function, int err, const char *fmt, va_list arg) {
    (void)file; (void)line; (void)function; (void)err;
    int *present;
    char *message = nook_alsa_thread_message(&present);
    vsnprintf(message, 512, fmt, arg);
    *present = 1;
}

// Routes this thread's alsa-lib messages to its own buffer and forgets the last one.
static inline void nook_alsa_collect_messages(void) {
    int *present;
    (void)nook_alsa_thread_message(&present);
    *present = 0;
    snd_lib_error_set_local(nook_alsa_local_error);
}

// The last message alsa-lib gave on this thread since nook_alsa_collect_messages, or NULL.
static inline const char *nook_alsa_last_message(void) {
    int *present;
    const char *message = nook_alsa_thread_message(&present);
    return *present ? message : NULL;
}
