#!/usr/bin/env python3
"""Checks the "Index:" lines of public headers against what the headers declare.

Usage: check_index.py HEADER...   (exit 0 when every header with an Index is exact)

The Index runs from "Index:" to the end of the header's opening comment (or to its first empty
comment line). It lists names separated by commas or spaces; a word ending in ':' is a group
label, text in parentheses is a remark, and "prefix*" stands for every function starting with
prefix. For each header:
  - every public function (rk_..., declared RK_API or defined static inline) must be listed;
  - every listed name must be declared in the header: a function, a typedef (a function pointer's
    too), a struct or enum tag, an enum constant or a macro;
  - no name may be listed twice.
"""
import re
import sys

IDENT = r'[A-Za-z_]\w*'


def opening_comment(text):
    m = re.match(r'\s*/\*(.*?)\*/', text, re.S)
    return m.group(1) if m else ''


def index_block(comment):
    lines = comment.split('\n')
    for i, line in enumerate(lines):
        k = line.find('Index:')
        if k < 0:
            continue
        block = [line[k + len('Index:'):]]
        for rest in lines[i + 1:]:
            body = re.sub(r'^\s*\*?', '', rest)
            if not body.strip():
                break
            block.append(body)
        return ' '.join(block)
    return None


def index_entries(block):
    block = re.sub(r'\([^)]*\)', ' ', block)
    entries = []
    for tok in re.split(r'[,\s]+', block):
        tok = tok.strip().rstrip('.')
        if not tok or tok.endswith(':'):
            continue
        if not re.fullmatch(IDENT + r'\*?', tok):
            raise ValueError('not a name: %r' % tok)
        entries.append(tok)
    return entries


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def declarations(text):
    code = strip_comments(text)
    flat = re.sub(r'\\\n', ' ', code)
    funcs = set(re.findall(r'\bRK_API\b[^;{]*?\b(' + IDENT + r')\s*\(', flat))
    funcs |= set(re.findall(r'\bstatic\s+inline\b[^;{(]*?\b(' + IDENT + r')\s*\(', flat))
    public = {f for f in funcs if f.startswith('rk_') and not f.startswith('rk__')}
    names = set(funcs)
    names |= set(re.findall(r'^\s*#\s*define\s+(' + IDENT + ')', flat, re.M))
    names |= set(re.findall(r'\b(?:struct|enum|union)\s+(' + IDENT + r')\s*\{', flat))
    # typedef ... NAME; (the last identifier before the semicolon, outside braces)
    depth = 0
    stmt = ''
    for ch in flat:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
        elif depth == 0:
            stmt += ch
            if ch == ';':
                m = re.search(r'\btypedef\b.*?(' + IDENT + r')\s*(?:\[[^]]*\])?\s*;$', stmt, re.S)
                if m:
                    names.add(m.group(1))
                # typedef RET (*NAME)(ARGS); a pointer to a function
                m = re.search(r'\btypedef\b[^;]*?\(\s*\*\s*(' + IDENT + r')\s*\)\s*\(', stmt)
                if m:
                    names.add(m.group(1))
                stmt = ''
    for body in re.findall(r'\benum\b[^{;]*\{(.*?)\}', flat, re.S):
        names |= set(re.findall(r'(' + IDENT + r')\s*(?:=[^,]*)?(?:,|$)', body.strip()))
    return public, names


def check(path):
    text = open(path, encoding='utf-8').read()
    block = index_block(opening_comment(text))
    if block is None:
        return []
    try:
        entries = index_entries(block)
    except ValueError as e:
        return ['%s: Index: %s' % (path, e)]
    public, names = declarations(text)
    errors = []
    seen = set()
    covered = set()
    for e in entries:
        if e in seen:
            errors.append('%s: Index lists %s twice' % (path, e))
        seen.add(e)
        if e.endswith('*'):
            match = {f for f in public if f.startswith(e[:-1])}
            if not match:
                errors.append('%s: Index has %s, which matches no function' % (path, e))
            covered |= match
        elif e not in names:
            errors.append('%s: Index lists %s, which the header does not declare' % (path, e))
        else:
            covered.add(e)
    for f in sorted(public - covered):
        errors.append('%s: Index lacks the function %s' % (path, f))
    return errors


def main(paths):
    errors = []
    indexed = 0
    for p in paths:
        errs = check(p)
        errors += errs
        indexed += index_block(opening_comment(open(p, encoding='utf-8').read())) is not None
    for e in errors:
        print(e)
    print('%d headers, %d with an Index, %d problems' % (len(paths), indexed, len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
