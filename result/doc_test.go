package result

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEverythingExportedIsDocumented: package result is what a Go program reads a Result
// through (go doc, pkg.go.dev), so every exported type, struct field, function, method,
// constant and variable carries its own comment (a doc comment, or a line comment after a
// field or constant); a new field without one fails here.
func TestEverythingExportedIsDocumented(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) < 5 {
		t.Fatalf("parsed %d files of package result: run from its directory", len(files))
	}
	var missing []string
	miss := func(pos token.Pos, what string) {
		missing = append(missing, fset.Position(pos).String()+": "+what)
	}
	documented := func(cgs ...*ast.CommentGroup) bool {
		for _, cg := range cgs {
			if cg != nil && strings.TrimSpace(cg.Text()) != "" {
				return true
			}
		}
		return false
	}
	var fields func(owner string, st *ast.StructType)
	fields = func(owner string, st *ast.StructType) {
		for _, f := range st.Fields.List {
			names := f.Names
			if len(names) == 0 { // embedded
				if id, ok := ast.Unparen(f.Type).(*ast.Ident); ok {
					names = []*ast.Ident{id}
				}
			}
			for _, n := range names {
				if n.IsExported() && !documented(f.Doc, f.Comment) {
					miss(n.Pos(), "field "+owner+"."+n.Name)
				}
			}
			if inner, ok := f.Type.(*ast.StructType); ok {
				fields(owner, inner)
			}
		}
	}
	var docs int
	for _, file := range files {
		if documented(file.Doc) {
			docs++
		}
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					id, ok := recv.(*ast.Ident)
					if !ok || !id.IsExported() {
						continue
					}
					name = id.Name + "." + name
				}
				if !documented(d.Doc) {
					miss(d.Pos(), "func "+name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if !documented(s.Doc, s.Comment) && !(len(d.Specs) == 1 && documented(d.Doc)) {
							miss(s.Pos(), "type "+s.Name.Name)
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							fields(s.Name.Name, st)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && !documented(s.Doc, s.Comment) && !(len(d.Specs) == 1 && documented(d.Doc)) {
								miss(n.Pos(), d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	if docs != 1 {
		t.Errorf("%d files carry a package comment, want exactly one (doc.go)", docs)
	}
	for _, m := range missing {
		t.Error("undocumented: " + m)
	}
}
