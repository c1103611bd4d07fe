package upgrade

// Wave is clusters a fleet's upgrade takes together: a wave starts when every cluster of the one
// before it ended healthy.
type Wave struct {
	// Name is the environments' rank ("development", "test", "staging", "other",
	// "production"), or "canary" for the clusters that go before the rest of the first wave.
	Name  string       `json:"name"`
	Plans []Assessment `json:"clusters"`
}

// rankNames name envRank's ranks.
var rankNames = []string{"development", "test", "staging", "other", "production"}

// Waves groups plans, in fleet order (Order), into a wave per environment rank that has
// clusters; with canary > 0 the first canary clusters of the first wave go alone before it (all
// of it when it has no more).
func Waves(plans []Assessment, canary int) []Wave {
	var out []Wave
	for _, p := range Order(plans) {
		name := rankNames[envRank(p.Env)]
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, Wave{Name: name})
		}
		out[len(out)-1].Plans = append(out[len(out)-1].Plans, p)
	}
	if canary <= 0 || len(out) == 0 {
		return out
	}
	first := out[0]
	if canary >= len(first.Plans) {
		out[0].Name = "canary"
		return out
	}
	rest := []Wave{{Name: "canary", Plans: first.Plans[:canary]}, {Name: first.Name, Plans: first.Plans[canary:]}}
	return append(rest, out[1:]...)
}
