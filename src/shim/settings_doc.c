/* hrelay-settings: prints what is generated from the table of settings (settings.c), so that
 * every place that lists the HRELAY_* settings comes from the one table. Built, not installed.
 *
 *   hrelay-settings names             one setting name per line (the variables tests clear)
 *   hrelay-settings markdown          the start of each row of the README's Environment table
 *   hrelay-settings options-markdown  the start of each row of the README's hrelay-run table
 *   hrelay-settings help              the settings part of hrelay-run --help
 *   hrelay-settings options-help      the options part of hrelay-run --help
 *   hrelay-settings shell             bash definitions hrelay-run parses its options with
 *   hrelay-settings fill              copies standard input to standard output, replacing the
 *                                     lines @SETTINGS_HELP@, @OPTIONS_HELP@ and
 *                                     @SETTINGS_SHELL@ (how make builds hrelay-run)
 *
 * Defaults are those of a configuration read from an environment without any of the settings.
 * Exit status 0, or 2 for a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/settings.h"

enum { HELP_WIDTH = 96, HELP_COLUMN = 21 };

/* The configuration of an environment without any HRELAY_* setting: the defaults. */
static shim_config defaults;

/* Appends s to the string in out, a buffer of cap bytes (truncating). */
static void cat(char *out, size_t cap, const char *s)
{
    size_t n = strlen(out), k = strlen(s);
    if (n + 1 >= cap)
        return;
    if (k > cap - n - 1)
        k = cap - n - 1;
    memcpy(out + n, s, k);
    out[n + k] = '\0';
}

/* Appends a literal value: `v` in Markdown, v in plain text. */
static void lit(char *out, size_t cap, const char *v, int md)
{
    cat(out, cap, md ? "`" : "");
    cat(out, cap, v);
    cat(out, cap, md ? "`" : "");
}

/* The values a setting takes, for a table cell (md) or the help. */
static void values(const shim_setting *s, int md, char *out, size_t cap)
{
    char num[64];
    int value;
    out[0] = '\0';
    switch (s->type) {
    case SHIM_SETTING_INT:
        if (s->automatic) {
            lit(out, cap, "auto", md);
            cat(out, cap, " or ");
        }
        if (s->unit) {
            cat(out, cap, s->unit);
            cat(out, cap, ", ");
        }
        for (long long v = s->min; s->max - s->min <= 2 && v <= s->max; v++) {
            snprintf(num, sizeof num, "%lld", v);
            cat(out, cap, v > s->min ? ", " : "");
            lit(out, cap, num, md);
        }
        if (s->max - s->min > 2) {
            snprintf(num, sizeof num, "%lld", (long long)s->min);
            lit(out, cap, num, md);
            cat(out, cap, " .. ");
            snprintf(num, sizeof num, "%lld", (long long)s->max);
            lit(out, cap, num, md);
        }
        break;
    case SHIM_SETTING_WORD:
        for (int i = 0; s->word(i, &value); i++) {
            cat(out, cap, i ? ", " : "");
            lit(out, cap, s->word(i, &value), md);
        }
        break;
    case SHIM_SETTING_BYTES:
        if (s->automatic) {
            lit(out, cap, "auto", md);
            cat(out, cap, " or ");
        }
        cat(out, cap, s->unit);
        if (s->min > 0) {
            snprintf(num, sizeof num, "%lld", (long long)s->min);
            cat(out, cap, ", at least ");
            lit(out, cap, num, md);
        }
        break;
    case SHIM_SETTING_PATH: cat(out, cap, s->unit); break;
    case SHIM_SETTING_SECONDS:
        cat(out, cap, s->unit);
        cat(out, cap, " in (0, ");
        snprintf(num, sizeof num, "%g", s->max_s);
        lit(out, cap, num, md);
        cat(out, cap, "]");
        break;
    }
}

/* A setting's default, for a table cell (md) or the help. */
static void default_text(const shim_setting *s, int md, char *out, size_t cap)
{
    char v[SHIM_PATH_MAX];
    out[0] = '\0';
    shim_setting_value(s, &defaults, v, sizeof v);
    if (s->type == SHIM_SETTING_PATH) {
        cat(out, cap, "none");
    } else if (s->type == SHIM_SETTING_SECONDS) {
        cat(out, cap, "calibrated or ");
        lit(out, cap, v, md);
    } else if (s->type == SHIM_SETTING_BYTES && s->def_text) {
        cat(out, cap, s->def_text);
    } else {
        lit(out, cap, v, md);
    }
}

/* An option's parts: "--verbose[=N]" is flag "--verbose", argument "N", optional. */
typedef struct option_form {
    char flag[64];
    const char *arg; /* "" for none */
    int optional;
} option_form;

/* Splits s's option. */
static option_form option_of(const shim_setting *s)
{
    option_form o = {.arg = "", .optional = 0};
    size_t n = strcspn(s->option, " [");
    snprintf(o.flag, sizeof o.flag, "%.*s", (int)n, s->option);
    if (s->option[n] == ' ') {
        o.arg = s->option + n + 1;
    } else if (s->option[n] == '[') {
        o.arg = s->option + n + 2; /* "[=N]" */
        o.optional = 1;
    }
    return o;
}

/* What an option sets: "<its variable>=ARG" (or the fixed value), then a note, as Markdown or
 * plain text. */
static void option_effect(const shim_setting *s, int md, char *out, size_t cap)
{
    option_form o = option_of(s);
    char value[64];
    snprintf(value, sizeof value, "%.*s", (int)strcspn(o.arg, "]"), o.arg);
    out[0] = '\0';
    cat(out, cap, md ? "`" : "");
    cat(out, cap, s->name);
    cat(out, cap, "=");
    cat(out, cap, value[0] ? value : s->option_value);
    cat(out, cap, md ? "`" : "");
    if (s->type == SHIM_SETTING_PATH)
        cat(out, cap, " (made absolute)");
    if (o.optional) {
        cat(out, cap, " (");
        lit(out, cap, o.flag, md);
        cat(out, cap, " alone: ");
        cat(out, cap, s->option_value);
        cat(out, cap, ")");
    }
}

/* Prints text from column `column` on, wrapped at HELP_WIDTH, the first line after `lead`. */
static void print_wrapped(const char *lead, const char *text)
{
    int col = printf("%s", lead);
    for (; col < HELP_COLUMN; col++)
        putchar(' ');
    while (*text) {
        size_t n = strcspn(text, " ");
        if (col > HELP_COLUMN && col + 1 + (int)n > HELP_WIDTH) {
            printf("\n%*s", HELP_COLUMN, "");
            col = HELP_COLUMN;
        } else if (col > HELP_COLUMN) {
            putchar(' ');
            col++;
        }
        col += printf("%.*s", (int)n, text);
        text += n;
        text += strspn(text, " ");
    }
    putchar('\n');
}

/* hrelay-settings help. */
static void print_help(void)
{
    char line[1024], v[512], d[256], lead[64];
    for (int i = 0; i < shim_nsettings; i++) {
        const shim_setting *s = &shim_settings[i];
        values(s, 0, v, sizeof v);
        default_text(s, 0, d, sizeof d);
        snprintf(line, sizeof line, "%s (default %s): %s", v, d, s->help);
        snprintf(lead, sizeof lead, "  %s ", s->name);
        print_wrapped(lead, line);
    }
}

/* hrelay-settings options-help. */
static void print_options_help(void)
{
    char effect[256], lead[64];
    for (int i = 0; i < shim_nsettings; i++) {
        const shim_setting *s = &shim_settings[i];
        if (!s->option)
            continue;
        option_effect(s, 0, effect, sizeof effect);
        snprintf(lead, sizeof lead, "  %s ", s->option);
        print_wrapped(lead, effect);
    }
}

/* hrelay-settings markdown and options-markdown. */
static void print_markdown(int options)
{
    char v[512], d[256];
    for (int i = 0; i < shim_nsettings; i++) {
        const shim_setting *s = &shim_settings[i];
        if (options && s->option) {
            option_effect(s, 1, v, sizeof v);
            printf("| `%s` | %s |\n", s->option, v);
        } else if (!options) {
            values(s, 1, v, sizeof v);
            default_text(s, 1, d, sizeof d);
            printf("| `%s` | %s | %s |\n", s->name, v, d);
        }
    }
}

/* hrelay-settings shell: bash arrays (values need no quoting beyond single quotes). */
static void print_shell(void)
{
    char expect[256];
    int value;
    printf("# Generated from the table of settings in src/shim/settings.c (hrelay-settings "
           "shell).\nhr_settings=(");
    for (int i = 0; i < shim_nsettings; i++)
        printf("%s%s", i ? " " : "", shim_settings[i].name);
    printf(")\ndeclare -A hr_option_var=() hr_option_arg=() hr_option_bare=() hr_check=() "
           "hr_expect=()\n");
    for (int i = 0; i < shim_nsettings; i++) {
        const shim_setting *s = &shim_settings[i];
        if (!s->option)
            continue;
        option_form o = option_of(s);
        printf("hr_option_var[%s]=%s hr_option_arg[%s]='%s%s'", o.flag, s->name, o.flag,
               o.optional ? "[=" : "", o.arg);
        if (s->option_value)
            printf(" hr_option_bare[%s]=%s", o.flag, s->option_value);
        printf("\nhr_check[%s]='", s->name);
        switch (s->type) {
        case SHIM_SETTING_INT:
            printf("int %lld %lld%s", (long long)s->min, (long long)s->max,
                   s->automatic ? " auto" : "");
            break;
        case SHIM_SETTING_WORD:
            printf("word");
            for (int k = 0; s->word(k, &value); k++)
                printf(" %s", s->word(k, &value));
            break;
        case SHIM_SETTING_BYTES:
            printf("bytes %lld%s", (long long)s->min, s->automatic ? " auto" : "");
            break;
        case SHIM_SETTING_PATH: printf("path"); break;
        case SHIM_SETTING_SECONDS: printf("seconds"); break;
        }
        printf("' hr_expect[%s]='%s'\n", s->name, shim_setting_expect(s, expect, sizeof expect));
    }
}

/* hrelay-settings fill. */
static void fill(void)
{
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        if (!strcmp(line, "@SETTINGS_HELP@\n"))
            print_help();
        else if (!strcmp(line, "@OPTIONS_HELP@\n"))
            print_options_help();
        else if (!strcmp(line, "@SETTINGS_SHELL@\n"))
            print_shell();
        else
            fputs(line, stdout);
    }
}

int main(int argc, char **argv)
{
    char warn[4096];
    for (int i = 0; i < shim_nsettings; i++)
        unsetenv(shim_settings[i].name);
    shim_config_from_env(&defaults, warn, sizeof warn);
    const char *what = argc == 2 ? argv[1] : "";
    if (!strcmp(what, "names"))
        for (int i = 0; i < shim_nsettings; i++)
            puts(shim_settings[i].name);
    else if (!strcmp(what, "markdown"))
        print_markdown(0);
    else if (!strcmp(what, "options-markdown"))
        print_markdown(1);
    else if (!strcmp(what, "help"))
        print_help();
    else if (!strcmp(what, "options-help"))
        print_options_help();
    else if (!strcmp(what, "shell"))
        print_shell();
    else if (!strcmp(what, "fill"))
        fill();
    else {
        fprintf(stderr, "usage: hrelay-settings names|markdown|options-markdown|help|"
                        "options-help|shell|fill\n");
        return 2;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
