// The one seam between Nook and libgpiod. The same small API over libgpiod 1.6 and 2.x, whose
// APIs are incompatible; nook_gpio.c picks the implementation from the gpiod.h it was built with.
// Only NookInput imports this module.
#ifndef NOOK_GPIO_H
#define NOOK_GPIO_H

#include <stdint.h>

/// Which libgpiod (or system) call failed, and its errno.
typedef struct {
    const char *call;
    int code;
} nook_gpio_error;

typedef struct {
    char name[32];
    char label[64];
    unsigned int lines;
} nook_gpio_chip_info;

typedef enum {
    NOOK_GPIO_BIAS_AS_IS = 0,
    NOOK_GPIO_BIAS_DISABLED = 1,
    NOOK_GPIO_BIAS_PULL_UP = 2,
    NOOK_GPIO_BIAS_PULL_DOWN = 3,
} nook_gpio_bias;

/// One edge: the physical level after it (1 rising, 0 falling) and the kernel's
/// CLOCK_MONOTONIC timestamp.
typedef struct {
    int rising;
    uint64_t timestamp_ns;
} nook_gpio_event;

/// One requested input line watched for both edges; released by nook_gpio_line_release.
typedef struct nook_gpio_line nook_gpio_line;

/// The libgpiod API this was built against: 1 or 2.
int nook_gpio_api(void);
/// libgpiod's own version string, e.g. "1.6.3" or "2.2.3".
const char *nook_gpio_library_version(void);

/// Name, label and line count of the chip at `path`; 0, or -1 with `error` set.
int nook_gpio_chip_describe(const char *path, nook_gpio_chip_info *info, nook_gpio_error *error);
/// The offset of the line called `name` on the chip at `path`; -1 with `error` set (code ENOENT
/// when the chip has no such line).
int nook_gpio_chip_find_line(const char *path, const char *name, nook_gpio_error *error);

/// Requests `offset` as an input with both edges reported and the given bias; NULL with
/// `error` set on failure.
nook_gpio_line *nook_gpio_line_request(const char *path, unsigned int offset, nook_gpio_bias bias,
                                       const char *consumer, nook_gpio_error *error);
/// The file descriptor that polls readable when edge events are waiting.
int nook_gpio_line_fd(const nook_gpio_line *line);
/// Reads up to `capacity` waiting events (blocks if none: poll first); the count, or -1.
int nook_gpio_line_read_events(nook_gpio_line *line, nook_gpio_event *events, int capacity,
                               nook_gpio_error *error);
/// The line's physical level now: 0 or 1, or -1 with `error` set.
int nook_gpio_line_value(nook_gpio_line *line, nook_gpio_error *error);
void nook_gpio_line_release(nook_gpio_line *line);

#endif
