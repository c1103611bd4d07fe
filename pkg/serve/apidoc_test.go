package serve_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// apiDoc is docs/api.md, the API's reference, which the tests hold to what the handlers answer.
var apiDoc = filepath.Join("..", "..", "docs", "api.md")

// errorRow is a row of docs/api.md's table of error statuses: the `code` and the When column.
type errorRow struct{ code, when string }

// errorTableRow matches a row of the table under "## Errors": | 409 | `CONFLICT` | When |.
var errorTableRow = regexp.MustCompile("^\\| (\\d{3}) \\| `([A-Z_]+)` \\| (.*) \\|$")

// apiDocErrors is docs/api.md's table of error statuses, by status.
func apiDocErrors(t *testing.T) map[int]errorRow {
	t.Helper()
	data, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Errors\n")
	if !ok {
		t.Fatal("docs/api.md has no Errors section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[int]errorRow{}
	for _, line := range strings.Split(section, "\n") {
		m := errorTableRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		status, _ := strconv.Atoi(m[1])
		if _, twice := rows[status]; twice {
			t.Fatalf("docs/api.md's error table lists %d twice", status)
		}
		rows[status] = errorRow{code: m[2], when: m[3]}
	}
	if len(rows) == 0 {
		t.Fatal("docs/api.md's Errors section has no table of statuses")
	}
	return rows
}

// apiDocPromise is the text of docs/api.md's paragraph that ends with the promise id.
func apiDocPromise(t *testing.T, id string) string {
	t.Helper()
	data, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, _, ok := strings.Cut(string(data), "<!-- promise: "+id+" -->")
	if !ok {
		t.Fatalf("docs/api.md has no promise %s", id)
	}
	if i := strings.LastIndex(before, "\n\n"); i >= 0 {
		before = before[i:]
	}
	return strings.Join(strings.Fields(before), " ")
}
