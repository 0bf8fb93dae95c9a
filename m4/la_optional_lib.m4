# la_optional_lib.m4 - one declaration per library labelaudit can build
# without: its --with/--without option, its pkg-config (or header and
# function) probe, HAVE_NAME for config.h and Makefile.am, the message that
# names its Debian package when it is missing, and its part in the
# static-archive link probes and the closing summary, which are built from
# what the declarations recorded (LA_STATIC_LINK_PROBE, LA_OPTIONAL_LIBS_SUMMARY).
#
# LA_OPTIONAL_LIB(NAME, KIND, DEBIAN-PACKAGE, LIBRARY, PKG-CONFIG-MODULE,
#                 HELP, WITHOUT-IT, DESCRIPTION, LINK, HEADER, STATIC-PROBE,
#                 [FUNCTION], [SEARCH-LIBS], [OTHER-LIBS], [SEARCH-CPPFLAGS],
#                 [ONLY-WITH], [PKG-VARIABLE-PREFIX])
#
# NAME        the option (--without-NAME), $with_NAME, HAVE_NAME uppercased
# KIND        required:  built unless --without-NAME; missing, configure fails
#             preferred: used when found; missing, a warning (WITHOUT-IT says
#                        what is slower), but an error under --with-NAME
#             optional:  used when found; missing, a warning (WITHOUT-IT says
#                        which format is left out), --with-NAME or not
# LIBRARY     as the messages name it ("libtiff >= 4.5"; the lists drop the
#             version)
# PKG-CONFIG-MODULE  empty where the library ships no pkg-config file
# HELP        --help's line for --without-NAME
# DESCRIPTION config.h's comment on HAVE_NAME
# LINK        light: its flags go into LIBS, and it is linked from its static
#             archive where it has one (LA_STATIC_LINK_PROBE([light]));
#             heavy: its flags go into HEAVY_LIBS, which
#             LA_STATIC_LINK_PROBE([heavy]) links from the static archives
#             or else appends to LIBS shared
# HEADER, STATIC-PROBE  the header and the C statements through which the
#             static link probe calls it (none: it ships no archive)
# FUNCTION, SEARCH-LIBS, OTHER-LIBS, SEARCH-CPPFLAGS  without pkg-config (or
#             when pkg-config does not know it): HEADER is looked for with
#             SEARCH-CPPFLAGS added, then FUNCTION in SEARCH-LIBS, linked
#             with OTHER-LIBS, which stay in LIBS after it
# ONLY-WITH   the NAME of another library without which this one is not used
# PKG-VARIABLE-PREFIX  of PKG_CHECK_MODULES's NAME_CFLAGS and NAME_LIBS
#             (default NAME uppercased)
AC_DEFUN([LA_OPTIONAL_LIB], [AC_REQUIRE([_LA_OPTIONAL_LIB_INIT])dnl
m4_pushdef([_la_prefix], m4_default([$17], m4_toupper([$1])))dnl
m4_pushdef([_la_have], [HAVE_]m4_toupper([$1]))dnl
AC_ARG_WITH([$1], [AS_HELP_STRING([--without-$1], [$6])], [],
  [with_$1=]m4_if([$2], [required], [yes], [check]))
m4_ifnblank([$16], [AS_IF([test "x$with_$16" != xyes], [with_$1=no])])
AS_IF([test "x$with_$1" != xno], [
  la_found=no
  m4_ifnblank([$5], [PKG_CHECK_MODULES(_la_prefix, [$5],
    [la_found=yes
     CPPFLAGS="$CPPFLAGS $_la_prefix[]_CFLAGS"
     m4_if([$9], [heavy], [HEAVY_LIBS="$_la_prefix[]_LIBS $HEAVY_LIBS"],
       [LIBS="$_la_prefix[]_LIBS $LIBS"
        la_light_modules="$la_light_modules ]m4_bpatsubst([$5], [ .*])["])],
    [m4_ifnblank([$12], [_LA_SEARCH_HEADER_AND_LIB($@)])])],
   [_LA_SEARCH_HEADER_AND_LIB($@)])
  AS_IF([test "x$la_found" = xyes],
    [with_$1=yes
     AC_DEFINE(_la_have, [1], [$8])],
    [m4_case([$2],
       [required], [AC_MSG_ERROR([$4 not found: install the Debian package $3, or configure --without-$1])],
       [preferred], [AS_IF([test "x$with_$1" = xyes],
         [AC_MSG_ERROR([$4 not found: install the Debian package $3, or configure --without-$1])])])
     with_$1=no
     AC_MSG_WARN([$4 not found: $7; install the Debian package $3])])])
AM_CONDITIONAL(_la_have, [test "x$with_$1" = xyes])
_LA_RECORD_SUMMARY(m4_bpatsubst([$4], [ .*]), [$1])dnl
m4_ifnblank([$11],
  [_LA_RECORD_STATIC_PROBE([$9], _la_have, m4_bpatsubst([$4], [ .*]), [$10], [$11])])dnl
m4_popdef([_la_have], [_la_prefix])dnl
])

# _LA_OPTIONAL_LIB_INIT: what the declarations append to starts empty, not
# from the environment. la_light_modules: the pkg-config modules found for
# light libraries, whose --static lists the light static-archive link needs.
AC_DEFUN([_LA_OPTIONAL_LIB_INIT], [
HEAVY_LIBS=
la_light_modules=
])

# _LA_SEARCH_HEADER_AND_LIB(ARGS-OF-LA_OPTIONAL_LIB): HEADER, then FUNCTION
# in SEARCH-LIBS; sets la_found. A required library stops configure here
# with the message naming what is missing (the header or the library).
AC_DEFUN([_LA_SEARCH_HEADER_AND_LIB], [
    m4_ifnblank([$15], [la_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $15"])
    AC_CHECK_HEADER([$10],
      [AC_SEARCH_LIBS([$12], [$13],
         [la_found=yes]m4_ifnblank([$14], [; LIBS="$LIBS $14"]),
         [m4_if([$2], [required],
            [AC_MSG_ERROR([$4 not found: install the Debian package $3, or configure --without-$1])])],
         [$14])],
      [m4_if([$2], [required],
         [AC_MSG_ERROR([$10 not found: install the Debian package $3, or configure --without-$1])])])
    m4_ifnblank([$15], [AS_IF([test "x$la_found" = xyes], [], [CPPFLAGS=$la_save_CPPFLAGS])])])

# _LA_RECORD_SUMMARY(LIBRARY, NAME): a line of LA_OPTIONAL_LIBS_SUMMARY.
m4_define([_LA_RECORD_SUMMARY], [m4_append([_LA_SUMMARY], [AC_MSG_NOTICE([$1: $with_$2])
])])

# _LA_RECORD_STATIC_PROBE(LINK, HAVE-NAME, LIBRARY, HEADER, STATEMENTS):
# adds the library to LINK's static link probe and to the list its
# messages name.
m4_define([_LA_RECORD_STATIC_PROBE], [dnl
m4_append([_LA_STATIC_PROLOGUE_$1], [[#ifdef $2
#include <$4>
#endif
]])dnl
m4_append([_LA_STATIC_BODY_$1], [[#ifdef $2
    { $5 }   /* a scope each: two libraries' statements may name the same variable */
#endif
]])dnl
m4_append([_LA_STATIC_NAMES_$1], [$3], [, ])dnl
])

# LA_STATIC_LINK_PROBE(LINK, OTHERS, PROLOGUE, STATEMENTS, IF-LINKS, IF-NOT):
# whether a program that calls every library LINK's declarations recorded
# (and OTHERS, through PROLOGUE and STATEMENTS) links with the current LIBS.
AC_DEFUN([LA_STATIC_LINK_PROBE], [
  AC_MSG_CHECKING([whether $2]LA_STATIC_NAMES([$1])[ link from their static archives])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([$3]m4_defn([_LA_STATIC_PROLOGUE_$1]),
                                  [$4]m4_defn([_LA_STATIC_BODY_$1]))],
    [AC_MSG_RESULT([yes])
     $5],
    [AC_MSG_RESULT([no])
     $6])])

# LA_STATIC_NAMES(LINK): the libraries LINK's probe links, "a, b, c".
AC_DEFUN([LA_STATIC_NAMES], [m4_defn([_LA_STATIC_NAMES_$1])])

# LA_OPTIONAL_LIBS_SUMMARY: one line per declared library, found or not.
AC_DEFUN([LA_OPTIONAL_LIBS_SUMMARY], [_LA_SUMMARY])
