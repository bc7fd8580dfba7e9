#!/bin/sh
# Writes each file given as a C string named html_<base name without
# extension>: html_flame.html -> html_page, flame.css -> html_css,
# flame.js -> html_js.  One source line per C line, so the page stays
# readable in the generated file too.
echo "/* Generated from merge/html/ by embed.sh: edit those files. */"
for f in "$@"; do
    case "$f" in
    *.html) name=html_page ;;
    *.css) name=html_css ;;
    *.js) name=html_js ;;
    *) echo "embed.sh: $f: unknown kind" >&2; exit 1 ;;
    esac
    echo "extern const char $name[];"
    echo "const char $name[] ="
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$f"
    echo ";"
done
