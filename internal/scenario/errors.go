package scenario

import (
	"fmt"
	"strings"
)

// Issue is one mistake in a scenario file.
type Issue struct {
	File      string
	Line, Col int
	Field     string // path such as workloads[0].instances
	Msg       string
}

func (i Issue) String() string {
	pos := i.File
	if i.Line > 0 {
		pos = fmt.Sprintf("%s:%d:%d", i.File, i.Line, i.Col)
	}
	if i.Field == "" {
		return pos + ": " + i.Msg
	}
	return pos + ": " + i.Field + ": " + i.Msg
}

// Error lists every issue found, one per line.
type Error struct{ Issues []Issue }

func (e *Error) Error() string {
	lines := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		lines[i] = is.String()
	}
	return strings.Join(lines, "\n")
}

// issues collects mistakes without duplicates (the same one shows in every cell).
type issues struct {
	file string
	seen map[string]bool
	list []Issue
}

func (s *issues) add(line, col int, field, format string, args ...any) {
	is := Issue{File: s.file, Line: line, Col: col, Field: field, Msg: fmt.Sprintf(format, args...)}
	k := is.String()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[k] {
		s.seen[k] = true
		s.list = append(s.list, is)
	}
}

func (s *issues) err() error {
	if len(s.list) == 0 {
		return nil
	}
	return &Error{Issues: s.list}
}
