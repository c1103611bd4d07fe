package body_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// A platform is read as a struct of a field per cloud was: the same messages, the same blocks.
func TestAPlatformIsReadAsAFieldPerCloud(t *testing.T) {
	for _, tc := range []struct {
		name, body   string
		err          string
		typ          string
		blocks       []string
		region, from string
	}{
		{name: "a type that is not a string is a type error at its field", body: `{"spec":{"platform":{"type":5}}}`,
			err: "field spec.platform.type must be a string, not number"},
		{name: "a block that is not an object is a type error at its field", body: `{"spec":{"platform":{"type":"civo","civo":5}}}`,
			err: "field spec.platform.civo must be an object, not number"},
		{name: "a platform that is not an object is a type error", body: `{"spec":{"platform":[]}}`,
			err: "field spec.platform must be an object, not array"},
		{name: "another seed's cloud is an unknown field listing the platforms", body: `{"spec":{"platform":{"type":"civo","gcp":{}}}}`,
			err: `unknown field "gcp": the platforms are civo and digitalocean`},
		{name: "a key of no cloud is an unknown field", body: `{"spec":{"platform":{"type":"civo","moon":{}}}}`,
			err: `unknown field "moon"`},
		{name: "keys match without regard to case", body: `{"spec":{"platform":{"TYPE":"civo","Civo":{"region":"lon1"}}}}`,
			typ: "civo", blocks: []string{"civo"}, region: "lon1"},
		{name: "a null block is absent", body: `{"spec":{"platform":{"type":"civo","civo":null}}}`, typ: "civo"},
		{name: "an empty block is present", body: `{"spec":{"platform":{"type":"digitalocean","digitalocean":{}}}}`,
			typ: "digitalocean", blocks: []string{"digitalocean"}},
		{name: "a null platform is empty", body: `{"spec":{"platform":null}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := body.Parse([]byte(tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Spec.Platform.Type != tc.typ || len(b.Spec.Platform.Blocks) != len(tc.blocks) {
				t.Errorf("platform = %+v, want type %q and blocks %v", b.Spec.Platform, tc.typ, tc.blocks)
			}
			for _, id := range tc.blocks {
				if b.Spec.Platform.Blocks[id] == nil {
					t.Errorf("no block %s in %+v", id, b.Spec.Platform)
				}
			}
			if got := b.Spec.Region(); got != tc.region {
				t.Errorf("region %q, want %q", got, tc.region)
			}
		})
	}
}

// The platform is written as it is read, so that a stored spec reads back the same.
func TestAPlatformIsWrittenAsItIsRead(t *testing.T) {
	in := `{"type":"civo","civo":{"region":"lon1"}}`
	var p body.Platform
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(p)
	if err != nil || string(out) != in {
		t.Errorf("wrote %s (%v), want %s", out, err, in)
	}
}

// A platform no driver knows is refused by its name, and a block of another cloud beside the
// type's is refused at that block: never read as another cloud's.
func TestAPlatformIsACloudAndAnUnknownOneIsRefused(t *testing.T) {
	// The platforms are every driver's cloud, in the drivers' order: "civo or digitalocean" for
	// the two clouds, and a cloud added to the drivers needs no line here.
	var ids []string
	for _, id := range clouds.IDs() {
		ids = append(ids, string(id))
	}
	everyPlatform := "must be " + strings.Join(ids, " or ")
	for _, tc := range []struct{ name, body, field, msg string }{
		{name: "an unknown type lists the platforms", body: `{"name":"c","spec":{"platform":{"type":"moon"}}}`,
			field: "spec.platform.type", msg: everyPlatform},
		{name: "another cloud's block is refused at it", body: `{"name":"c","spec":{"platform":{"type":"civo","civo":{},"digitalocean":{}}}}`,
			field: "spec.platform.digitalocean", msg: "platform.type is civo: write its block as platform.civo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := body.Parse([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			_, err = body.ClusterManifest(b)
			var pe *body.ProblemsError
			if !asProblems(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Field != tc.field || pe.Problems[0].Message != tc.msg {
				t.Errorf("err = %v, want %s: %s", err, tc.field, tc.msg)
			}
		})
	}
}

func asProblems(err error, pe **body.ProblemsError) bool {
	p, ok := err.(*body.ProblemsError)
	*pe = p
	return ok
}
