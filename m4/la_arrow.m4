# la_arrow.m4 - Apache Arrow's C++ libraries (libarrow, libparquet) for the
# Parquet and Arrow reader: from `pkg-config arrow parquet` (Apache's own
# packages, libarrow-dev and libparquet-dev), else from an installed pyarrow,
# which ships the same libraries and headers. Debian packages neither, so the
# usual way is `pip install pyarrow`. pyarrow's libraries carry a version in
# their names (libarrow.so.1900): they are linked by full path, with an rpath
# to pyarrow's folder so that the program finds them when it runs.
#
# LA_ARROW: --without-arrow; HAVE_ARROW (config.h and Makefile.am),
# ARROW_CPPFLAGS, ARROW_LIBS and ARROW_CXXSTD (the C++ standard its headers need), ARROW_FOUND_IN ("pkg-config" or "pyarrow X.Y")
# for --version. A missing Arrow is a warning: those formats are then refused
# by name, with how to get them.
AC_DEFUN([LA_ARROW], [
AC_ARG_WITH([arrow], [AS_HELP_STRING([--without-arrow],
  [build without Parquet and Arrow files (Apache Arrow's libarrow, libparquet)])],
  [], [with_arrow=check])
AC_ARG_VAR([PYTHON], [the Python whose pyarrow provides Arrow when pkg-config does not])
ARROW_CPPFLAGS= ARROW_LIBS= ARROW_CXXSTD=-std=c++17 arrow_found_in=
AS_IF([test "x$with_arrow" != xno], [
  PKG_CHECK_MODULES([ARROW_PC], [arrow parquet],
    [ARROW_CPPFLAGS=`echo " $ARROW_PC_CFLAGS" | sed "s/ -I/ -isystem /g"` ARROW_LIBS="$ARROW_PC_LIBS"
     arrow_found_in="pkg-config `$PKG_CONFIG --modversion arrow`"], [:])
  AS_IF([test -z "$arrow_found_in"], [
    AC_MSG_CHECKING([for pyarrow's libarrow and libparquet])
    # the package's folder without importing it: pyarrow's import needs a
    # NumPy it agrees with, which the build does not
    for py in $PYTHON python3 /usr/bin/python3; do
      dir=`$py -c 'import importlib.util as u; s = u.find_spec("pyarrow"); print(s.submodule_search_locations[[0]])' 2>/dev/null` || continue
      libarrow=`ls "$dir"/libarrow.so.* 2>/dev/null | sed -n '/libarrow\.so\.[[0-9]]*$/p' | head -n 1`
      libparquet=`ls "$dir"/libparquet.so.* 2>/dev/null | sed -n '/libparquet\.so\.[[0-9]]*$/p' | head -n 1`
      AS_IF([test -n "$libarrow" && test -n "$libparquet" && test -f "$dir/include/arrow/api.h"], [
        version=`ls -d "$dir"/../pyarrow-*.dist-info 2>/dev/null | sed -n 's/.*pyarrow-\([[0-9]]*\.[[0-9]]*\).*/\1/p' | head -n 1`
        ARROW_CPPFLAGS="-isystem $dir/include"
        ARROW_LIBS="$libparquet $libarrow -Wl,-rpath,$dir"
        arrow_found_in="pyarrow${version:+ $version}"
        break])
    done
    AC_MSG_RESULT([${arrow_found_in:-no}])])
  AS_IF([test -n "$arrow_found_in"], [
    # Arrow 10 to 22 need C++17, 23 and later C++20; a library built with the
    # old std::string ABI (manylinux2014 wheels) needs that said too
    AC_LANG_PUSH([C++])
    save_CPPFLAGS=$CPPFLAGS save_LIBS=$LIBS save_CXXFLAGS=$CXXFLAGS
    arrow_linked=no
    for std in -std=c++17 -std=c++20; do
      for abi in "" "-D_GLIBCXX_USE_CXX11_ABI=0"; do
        CPPFLAGS="$save_CPPFLAGS $ARROW_CPPFLAGS $abi" LIBS="$ARROW_LIBS $save_LIBS"
        CXXFLAGS="$save_CXXFLAGS $std"
        AC_MSG_CHECKING([whether a program links with Arrow ($std${abi:+ $abi})])
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <arrow/api.h>
#include <parquet/arrow/reader.h>
#include <string>]],
          [[std::string s = arrow::Status::Invalid("x").ToString();
            auto f = arrow::field(s, arrow::int64());
            return (int)f->name().size() + (int)parquet::default_reader_properties().buffer_size();]])],
          [arrow_linked=yes], [])
        AC_MSG_RESULT([$arrow_linked])
        AS_IF([test "x$arrow_linked" = xyes], [ARROW_CPPFLAGS="$ARROW_CPPFLAGS $abi" ARROW_CXXSTD=$std; break 2])
      done
    done
    CPPFLAGS=$save_CPPFLAGS LIBS=$save_LIBS CXXFLAGS=$save_CXXFLAGS
    AC_LANG_POP([C++])
    AS_IF([test "x$arrow_linked" = xyes], [], [arrow_found_in=])])
  AS_IF([test -n "$arrow_found_in"], [
    with_arrow=yes
    ARROW_LIBS="$ARROW_LIBS -lstdc++"
    AC_DEFINE([HAVE_ARROW], [1], [Define when Parquet and Arrow files are read through Apache Arrow])
    AC_DEFINE_UNQUOTED([ARROW_FOUND_IN], ["$arrow_found_in"], [Where configure found Apache Arrow])
    # for tests/fuzz/run.sh, which builds the reader from config.h's word
    AC_DEFINE_UNQUOTED([LA_ARROW_CPPFLAGS], ["$ARROW_CXXSTD $ARROW_CPPFLAGS"], [The compiler flags of Apache Arrow])
    AC_DEFINE_UNQUOTED([LA_ARROW_LIBS], ["$ARROW_LIBS"], [The linker flags of Apache Arrow])
  ], [test "x$with_arrow" = xyes], [
    AC_MSG_ERROR([Apache Arrow (libarrow, libparquet) not found: pip install pyarrow, or install Apache's libarrow-dev and libparquet-dev, or configure --without-arrow])
  ], [
    with_arrow=no
    AC_MSG_WARN([Apache Arrow (libarrow, libparquet) not found: Parquet and Arrow files are refused; pip install pyarrow (or Apache's libarrow-dev and libparquet-dev)])])])
AC_SUBST([ARROW_CPPFLAGS])
AC_SUBST([ARROW_LIBS])
AC_SUBST([ARROW_CXXSTD])
AM_CONDITIONAL([HAVE_ARROW], [test "x$with_arrow" = xyes])
])
