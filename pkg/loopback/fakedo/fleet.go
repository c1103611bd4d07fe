package fakedo

import (
	"encoding/json"
	"strconv"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/pkg/errors"
)

// FleetCluster is the cluster id in a state file Save wrote, as tools/fleetgen copies it: the
// cluster without its CA, which the copies share (AddFleet gives each the base's), its pools' and
// nodes' ids, and its nodes' droplets, which are numbers.
func FleetCluster(saved []byte, id string) (fakecloud.FleetCluster, error) {
	var s snapshot
	if err := json.Unmarshal(saved, &s); err != nil {
		return fakecloud.FleetCluster{}, errors.Wrap(err, "decode the DigitalOcean cloud")
	}
	c, ok := s.Clusters[id]
	if !ok {
		return fakecloud.FleetCluster{}, errors.Errorf("the DigitalOcean cloud has no cluster %s", id)
	}
	f := fakecloud.FleetCluster{Name: c.Cluster.Name, IDs: []string{c.Cluster.ID}, Address: c.Cluster.IPv4}
	for _, p := range c.Cluster.NodePools {
		f.IDs = append(f.IDs, p.ID)
		for _, n := range p.Nodes {
			f.IDs = append(f.IDs, n.ID)
			if n.DropletID != "" {
				f.Numbers = append(f.Numbers, n.DropletID)
			}
		}
	}
	var err error
	f.JSON, err = json.Marshal(c.Cluster)
	return f, errors.Wrap(err, "encode the DigitalOcean cluster")
}

// AddFleet is the state file saved with copies (clusters as FleetCluster gives them, with their
// names and ids rewritten) added after its own clusters, each with the CA of the cluster baseID
// they copy; the next droplet the cloud hands out comes after every copy's.
func AddFleet(saved []byte, baseID string, copies []json.RawMessage) ([]byte, error) {
	var cloud map[string]json.RawMessage
	if err := json.Unmarshal(saved, &cloud); err != nil {
		return nil, errors.Wrap(err, "decode the DigitalOcean cloud")
	}
	var s snapshot
	if err := json.Unmarshal(saved, &s); err != nil {
		return nil, errors.Wrap(err, "decode the DigitalOcean cloud")
	}
	base, ok := s.Clusters[baseID]
	if !ok {
		return nil, errors.Errorf("the DigitalOcean cloud has no cluster %s", baseID)
	}
	for i, data := range copies {
		c := savedCluster{CAPEM: base.CAPEM}
		if err := json.Unmarshal(data, &c.Cluster); err != nil {
			return nil, errors.Wrapf(err, "decode copy %d", i+1)
		}
		if _, ok := s.Clusters[c.Cluster.ID]; !ok {
			s.Order = append(s.Order, c.Cluster.ID)
		}
		s.Clusters[c.Cluster.ID] = c
		for _, p := range c.Cluster.NodePools {
			for _, n := range p.Nodes {
				if d, err := strconv.Atoi(n.DropletID); err == nil {
					s.NextDroplet = max(s.NextDroplet, d)
				}
			}
		}
	}
	// Only the fields the copies change are written again: the rest of the file stays as it was.
	for key, v := range map[string]any{"clusters": s.Clusters, "order": s.Order, "nextDroplet": s.NextDroplet} {
		data, err := json.Marshal(v)
		if err != nil {
			return nil, errors.Wrapf(err, "encode the cloud's %s", key)
		}
		cloud[key] = data
	}
	out, err := json.Marshal(cloud)
	return out, errors.Wrap(err, "encode the DigitalOcean cloud")
}
