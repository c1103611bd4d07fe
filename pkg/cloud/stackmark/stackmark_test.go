package stackmark_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
)

func TestAMarkIsEachStacksAloneInEachBackendAndReadBackFromTags(t *testing.T) {
	base := stackmark.Of("file:///state", "digitaloceankubernetescluster/dev-fra1")
	tests := []struct {
		name                  string
		other                 stackmark.Mark
		sameMark, sameBackend bool
	}{
		{name: "the same stack in the same backend has the same mark",
			other: stackmark.Of("file:///state", "digitaloceankubernetescluster/dev-fra1"), sameMark: true, sameBackend: true},
		{name: "another stack of the backend has another mark, with the backend's part",
			other: stackmark.Of("file:///state", "digitaloceankubernetescluster/dev-lon1"), sameBackend: true},
		{name: "the same stack in another backend has another mark",
			other: stackmark.Of("file:///other", "digitaloceankubernetescluster/dev-fra1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if (tt.other == base) != tt.sameMark {
				t.Errorf("%v against %v: same %v, want %v", tt.other, base, tt.other == base, tt.sameMark)
			}
			if (tt.other.Backend == base.Backend) != tt.sameBackend {
				t.Errorf("the backend part %s against %s: same %v, want %v", tt.other.Backend, base.Backend, !tt.sameBackend, tt.sameBackend)
			}
		})
	}
	tag := base.Tag()
	if !strings.HasPrefix(tag, stackmark.Prefix) || len(tag) != len(stackmark.Prefix)+12+1+12 {
		t.Errorf("Tag() = %q, want %s<12 hex>-<12 hex>", tag, stackmark.Prefix)
	}
	got := stackmark.In([]string{"team:a", tag, stackmark.Prefix + "by-hand"})
	if len(got) != 1 || got[0] != base {
		t.Errorf("In() = %v, want %v alone: a tag of the prefix that is no mark is left out", got, base)
	}
	if (stackmark.Mark{}).Tag() != "" {
		t.Errorf("the zero mark has a tag")
	}
}

func TestABackendIsNamedWithoutItsCredentials(t *testing.T) {
	tests := []struct{ url, want string }{
		{"postgres://alice:s3cret@db.example:5432/pulumi?sslmode=disable&password=x", "postgres://db.example/pulumi?sslmode=disable"},
		{"postgresql://bob@DB.example/pulumi?sslmode=disable", "postgres://db.example/pulumi?sslmode=disable"},
		{"file:///var/state", "file:///var/state"},
		{"s3://bucket/prefix?region=eu-west-1&endpoint=minio1&awssdk=v2", "s3://bucket/prefix?awssdk=v2&endpoint=minio1&region=eu-west-1"},
		{"azblob://state?storage_account=a&sas_token=sv%3D1", "azblob://state?storage_account=a"},
		{"postgres://u:pa/ss@db/x", "unparsed:db/x"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := stackmark.BackendID(tt.url); got != tt.want {
				t.Errorf("BackendID(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

func TestTagsAddTheCarriedMarkOnlyAndNeverChangeTheirArgument(t *testing.T) {
	m := stackmark.Of("file:///state", "p/s")
	tags := make([]string, 1, 4)
	tags[0] = "team:a"
	if got := stackmark.Tags(context.Background(), tags); len(got) != 1 {
		t.Errorf("Tags() without a mark = %v, want the tags alone", got)
	}
	got := stackmark.Tags(stackmark.Context(context.Background(), m), tags)
	if len(got) != 2 || got[1] != m.Tag() {
		t.Errorf("Tags() with a mark = %v, want it last", got)
	}
	if again := append(tags, "x"); again[1] != "x" || got[1] != m.Tag() {
		t.Errorf("Tags() shares its result's array with its argument: %v", got)
	}
}

// A file backend is named by its folder as it really is, whichever spelling names it: a link to
// it, or a path relative to the working folder.
func TestAFileBackendIsNamedByItsFolderHoweverSpelled(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	want := stackmark.BackendID("file://" + real)
	t.Chdir(filepath.Dir(real))
	for _, url := range []string{"file://" + link, "file://./" + filepath.Base(real), "file://" + filepath.Base(real) + "?no_legacy_layout=true"} {
		if got := stackmark.BackendID(url); got != want {
			t.Errorf("BackendID(%q) = %q, want %q (the folder it names)", url, got, want)
		}
	}
	if other := stackmark.BackendID("file://" + t.TempDir()); other == want {
		t.Errorf("two folders are named alike: %q", other)
	}
}
