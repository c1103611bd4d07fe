package cli

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
)

// Clouds are the clouds a command takes by name (regions CLOUD): every listed cloud, by its ID,
// in the list's order.
func Clouds() []string {
	var out []string
	for _, id := range cloudlist.IDs() {
		out = append(out, string(id))
	}
	return out
}

// CloudsOr lists the clouds as a sentence offers them: "civo or digitalocean".
func CloudsOr() string { return strings.Join(Clouds(), " or ") }

// ExampleKind is the name of kinds' i-th kind, for a help text's example; KIND when there is none
// (a command built without kinds).
func ExampleKind(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return "KIND"
}

// TokenVars are the variables each cloud's token is read from, as a sentence lists them:
// "CIVO_TOKEN, DIGITALOCEAN_TOKEN".
func TokenVars() string {
	var out []string
	for _, c := range cloudlist.All() {
		out = append(out, c.Env().TokenEnv)
	}
	return strings.Join(out, ", ")
}

// ExampleFolder is the folder of examples/ holding the first kind's examples (its name in lower
// case, as examples/ names its folders), for a help text's example.
func ExampleFolder(names []string) string { return strings.ToLower(ExampleKind(names, 0)) }

// Regions are the regions the repository's table of the cloud id lists (its facts'); a cloud
// nothing lists is an error naming it.
func Regions(id string) ([]cost.Region, error) {
	c, err := cloudlist.Get(cloudfacts.ID(id))
	if err != nil {
		return nil, err
	}
	return c.Regions(), nil
}
