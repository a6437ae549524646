# Run as `cmake -DREDRIVE=path/to/redrive -DOUTPUT=redrive.1 -DVERSION=x.y.z -P
# manpage.cmake`: writes the redrive(1) man page from the binary's own help:
# `redrive --help`, then `redrive CMD [SUB] --help` for every command listed
# under "Subcommands:", depth first, each printed as it is (preformatted).

cmake_minimum_required(VERSION 3.25)

# Text made safe for roff: backslashes, hyphens, and leading dots/quotes.
function(roff_escape text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(help_of command out)
  execute_process(COMMAND "${REDRIVE}" ${command} --help OUTPUT_VARIABLE help
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN command " " shown)
    message(FATAL_ERROR "redrive ${shown} --help failed (${rc}): ${err}")
  endif()
  set(${out} "${help}" PARENT_SCOPE)
endfunction()

# The names listed under "Subcommands:" of a help text.
function(subcommands_of help out)
  set(names "")
  if(help MATCHES "\nSubcommands:\n(.*)")
    set(rest "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "\n\n.*" "" rest "${rest}")  # the section ends at a blank line
    string(REGEX MATCHALL "(^|\n)  [a-z][a-z0-9-]*" lines "${rest}")
    foreach(line IN LISTS lines)
      string(STRIP "${line}" name)
      list(APPEND names "${name}")
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

set(sections "")
function(add_command_sections command)
  help_of("${command}" help)
  list(JOIN command " " shown)
  roff_escape("${help}" body)
  roff_escape("redrive ${shown}" title)
  string(APPEND sections ".SS \"${title}\"\n.nf\n${body}.fi\n")
  subcommands_of("${help}" subs)
  set(sections "${sections}" PARENT_SCOPE)
  foreach(sub IN LISTS subs)
    add_command_sections("${command};${sub}")
    set(sections "${sections}" PARENT_SCOPE)
  endforeach()
endfunction()

help_of("" top)
# The first line of `redrive --help` is "Redrive: <what it is>".
string(REGEX MATCH "^[^\n]*" summary "${top}")
string(REGEX REPLACE "^Redrive: *" "" summary "${summary}")
roff_escape("${summary}" summary)
roff_escape("${top}" top_body)
subcommands_of("${top}" commands)
foreach(command IN LISTS commands)
  add_command_sections("${command}")
endforeach()

file(WRITE "${OUTPUT}" ".TH REDRIVE 1 \"\" \"redrive ${VERSION}\" \"User Commands\"
.SH NAME
redrive \\- ${summary}
.SH SYNOPSIS
.B redrive
[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]
.SH DESCRIPTION
.nf
${top_body}.fi
.SH COMMANDS
${sections}.SH SEE ALSO
README.md and docs/ in the documentation folder of this installation
(usually /usr/share/doc/redrive or /usr/local/share/doc/redrive).
")
