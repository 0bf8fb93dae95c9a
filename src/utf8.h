/* utf8.h - text from the input (a cell, a path, a reader's message) made fit
 * for formats that must be valid UTF-8: JSON, XML, GitHub workflow commands. */
#ifndef LA_UTF8_H
#define LA_UTF8_H

/** la_utf8_clean() : a copy of s in which each byte that does not start a
 *  valid UTF-8 sequence (overlong forms, surrogates and code points above
 *  U+10FFFF included) is U+FFFD. @return it (free() it), or NULL when out of memory. */
char *la_utf8_clean(const char *s);

#endif
