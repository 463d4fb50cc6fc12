" Vim syntax file
" Language: KML, the kernel modelling language (github.com/kml-lang/kml)

if exists("b:current_syntax")
  finish
endif

syn keyword kmlStatement  let fn model generated import nextgroup=kmlName skipwhite
syn keyword kmlConditional if then else
syn keyword kmlBoolean    true false
syn match   kmlTarget     "\<target\>\ze\s*+="
syn match   kmlName       "\h\w*" contained
syn match   kmlComment    "#.*$" contains=kmlTodo,@Spell
syn keyword kmlTodo       TODO FIXME XXX contained
syn region  kmlString     start=+"+ skip=+\\\\\|\\"+ end=+"+ contains=kmlEscape,@Spell
syn match   kmlEscape     +\\.+ contained
syn match   kmlNumber     "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\>"
syn match   kmlNumber     "\.\d\+\([eE][+-]\=\d\+\)\=\>"
syn match   kmlTilde      "\~"
syn match   kmlOperator   "+=\|==\|!=\|<=\|>=\|&&\|||\|[-+*/%^@<>!]"
syn match   kmlNamedArg   "\<\h\w*\ze\s*:[^:]"
syn match   kmlCall       "\<\h\w*\ze\s*("

hi def link kmlStatement   Statement
hi def link kmlConditional Conditional
hi def link kmlBoolean     Boolean
hi def link kmlTarget      Keyword
hi def link kmlName        Identifier
hi def link kmlComment     Comment
hi def link kmlTodo        Todo
hi def link kmlString      String
hi def link kmlEscape      SpecialChar
hi def link kmlNumber      Number
hi def link kmlTilde       Operator
hi def link kmlOperator    Operator
hi def link kmlNamedArg    Identifier
hi def link kmlCall        Function

let b:current_syntax = "kml"
