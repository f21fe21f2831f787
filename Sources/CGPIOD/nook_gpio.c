// libgpiod 1.6 and 2.x behind nook_gpio.h. Only 1.6's gpiod.h defines GPIOD_LINE_BULK_MAX_LINES
// (2.x dropped line bulks), so that macro chooses the implementation at build time.
#include "nook_gpio.h"

#include <errno.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(nook_gpio_error *error, const char *call) {
    error->call = call;
    error->code = errno ? errno : EIO;
    return -1;
}

static void copy_text(char *destination, size_t size, const char *source) {
    snprintf(destination, size, "%s", source ? source : "");
}

#ifdef GPIOD_LINE_BULK_MAX_LINES
// ---- libgpiod 1.6 (uAPI v1 through the library) ----

struct nook_gpio_line {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
};

int nook_gpio_api(void) { return 1; }
const char *nook_gpio_library_version(void) { return gpiod_version_string(); }

int nook_gpio_chip_describe(const char *path, nook_gpio_chip_info *info, nook_gpio_error *error) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return fail(error, "gpiod_chip_open");
    copy_text(info->name, sizeof info->name, gpiod_chip_name(chip));
    copy_text(info->label, sizeof info->label, gpiod_chip_label(chip));
    info->lines = gpiod_chip_num_lines(chip);
    gpiod_chip_close(chip);
    return 0;
}

int nook_gpio_chip_find_line(const char *path, const char *name, nook_gpio_error *error) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return fail(error, "gpiod_chip_open");
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip, name);
    if (!line) {
        int result = fail(error, "gpiod_chip_find_line");
        if (errno == 0) error->code = ENOENT;
        gpiod_chip_close(chip);
        return result;
    }
    int offset = (int)gpiod_line_offset(line);
    gpiod_chip_close(chip);
    return offset;
}

nook_gpio_line *nook_gpio_line_request(const char *path, unsigned int offset, nook_gpio_bias bias,
                                       const char *consumer, nook_gpio_error *error) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) { fail(error, "gpiod_chip_open"); return NULL; }
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) { fail(error, "gpiod_chip_get_line"); gpiod_chip_close(chip); return NULL; }
    int flags = 0;
    switch (bias) {
    case NOOK_GPIO_BIAS_DISABLED: flags = GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case NOOK_GPIO_BIAS_PULL_UP: flags = GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case NOOK_GPIO_BIAS_PULL_DOWN: flags = GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    case NOOK_GPIO_BIAS_AS_IS: break;
    }
    if (gpiod_line_request_both_edges_events_flags(line, consumer, flags) != 0) {
        fail(error, "gpiod_line_request_both_edges_events_flags");
        gpiod_chip_close(chip);
        return NULL;
    }
    nook_gpio_line *result = calloc(1, sizeof *result);
    if (!result) { fail(error, "calloc"); gpiod_line_release(line); gpiod_chip_close(chip); return NULL; }
    result->chip = chip;
    result->line = line;
    return result;
}

int nook_gpio_line_fd(const nook_gpio_line *line) { return gpiod_line_event_get_fd(line->line); }

int nook_gpio_line_read_events(nook_gpio_line *line, nook_gpio_event *events, int capacity,
                               nook_gpio_error *error) {
    struct gpiod_line_event read[16];
    if (capacity > 16) capacity = 16;
    int count = gpiod_line_event_read_multiple(line->line, read, (unsigned int)capacity);
    if (count < 0) return fail(error, "gpiod_line_event_read_multiple");
    for (int i = 0; i < count; i++) {
        events[i].rising = read[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        events[i].timestamp_ns = (uint64_t)read[i].ts.tv_sec * 1000000000u + (uint64_t)read[i].ts.tv_nsec;
    }
    return count;
}

int nook_gpio_line_value(nook_gpio_line *line, nook_gpio_error *error) {
    int value = gpiod_line_get_value(line->line);
    return value < 0 ? fail(error, "gpiod_line_get_value") : value;
}

void nook_gpio_line_release(nook_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    gpiod_chip_close(line->chip);
    free(line);
}

#else
// ---- libgpiod 2.x (uAPI v2) ----

enum { EVENT_BUFFER_CAPACITY = 16 };

struct nook_gpio_line {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
    unsigned int offset;
};

int nook_gpio_api(void) { return 2; }
const char *nook_gpio_library_version(void) { return gpiod_api_version(); }

int nook_gpio_chip_describe(const char *path, nook_gpio_chip_info *info, nook_gpio_error *error) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return fail(error, "gpiod_chip_open");
    struct gpiod_chip_info *chip_info = gpiod_chip_get_info(chip);
    if (!chip_info) { int result = fail(error, "gpiod_chip_get_info"); gpiod_chip_close(chip); return result; }
    copy_text(info->name, sizeof info->name, gpiod_chip_info_get_name(chip_info));
    copy_text(info->label, sizeof info->label, gpiod_chip_info_get_label(chip_info));
    info->lines = (unsigned int)gpiod_chip_info_get_num_lines(chip_info);
    gpiod_chip_info_free(chip_info);
    gpiod_chip_close(chip);
    return 0;
}

int nook_gpio_chip_find_line(const char *path, const char *name, nook_gpio_error *error) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return fail(error, "gpiod_chip_open");
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip, name);
    if (offset < 0) {
        fail(error, "gpiod_chip_get_line_offset_from_name");
        if (errno == 0) error->code = ENOENT;
    }
    gpiod_chip_close(chip);
    return offset < 0 ? -1 : offset;
}

static enum gpiod_line_bias line_bias(nook_gpio_bias bias) {
    switch (bias) {
    case NOOK_GPIO_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    case NOOK_GPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case NOOK_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    case NOOK_GPIO_BIAS_AS_IS: break;
    }
    return GPIOD_LINE_BIAS_AS_IS;
}

nook_gpio_line *nook_gpio_line_request(const char *path, unsigned int offset, nook_gpio_bias bias,
                                       const char *consumer, nook_gpio_error *error) {
    nook_gpio_line *result = NULL;
    struct gpiod_line_settings *settings = NULL;
    struct gpiod_line_config *line_config = NULL;
    struct gpiod_request_config *request_config = NULL;
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) { fail(error, "gpiod_chip_open"); goto done; }
    settings = gpiod_line_settings_new();
    line_config = gpiod_line_config_new();
    request_config = gpiod_request_config_new();
    if (!settings || !line_config || !request_config) { fail(error, "gpiod_line_settings_new"); goto done; }
    if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) != 0
        || gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) != 0
        || gpiod_line_settings_set_bias(settings, line_bias(bias)) != 0) {
        fail(error, "gpiod_line_settings_set");
        goto done;
    }
    if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) != 0) {
        fail(error, "gpiod_line_config_add_line_settings");
        goto done;
    }
    gpiod_request_config_set_consumer(request_config, consumer);
    struct gpiod_line_request *request = gpiod_chip_request_lines(chip, request_config, line_config);
    if (!request) { fail(error, "gpiod_chip_request_lines"); goto done; }
    struct gpiod_edge_event_buffer *buffer = gpiod_edge_event_buffer_new(EVENT_BUFFER_CAPACITY);
    result = buffer ? calloc(1, sizeof *result) : NULL;
    if (!result) {
        fail(error, buffer ? "calloc" : "gpiod_edge_event_buffer_new");
        gpiod_edge_event_buffer_free(buffer);
        gpiod_line_request_release(request);
        goto done;
    }
    result->request = request;
    result->buffer = buffer;
    result->offset = offset;
done:
    gpiod_request_config_free(request_config);
    gpiod_line_config_free(line_config);
    gpiod_line_settings_free(settings);
    if (chip) gpiod_chip_close(chip);
    return result;
}

int nook_gpio_line_fd(const nook_gpio_line *line) { return gpiod_line_request_get_fd(line->request); }

int nook_gpio_line_read_events(nook_gpio_line *line, nook_gpio_event *events, int capacity,
                               nook_gpio_error *error) {
    if (capacity > EVENT_BUFFER_CAPACITY) capacity = EVENT_BUFFER_CAPACITY;
    int count = gpiod_line_request_read_edge_events(line->request, line->buffer, (size_t)capacity);
    if (count < 0) return fail(error, "gpiod_line_request_read_edge_events");
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->buffer, (unsigned long)i);
        events[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    }
    return count;
}

int nook_gpio_line_value(nook_gpio_line *line, nook_gpio_error *error) {
    enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
    return value == GPIOD_LINE_VALUE_ERROR ? fail(error, "gpiod_line_request_get_value") : (int)value;
}

void nook_gpio_line_release(nook_gpio_line *line) {
    if (!line) return;
    gpiod_line_request_release(line->request);
    gpiod_edge_event_buffer_free(line->buffer);
    free(line);
}
#endif
