package playbooks

// SubFiles returns the paths (as written, relative to the playbook) of the
// playbooks its run steps include, hooks and watchers too, in order.
func SubFiles(pb *Playbook) []string {
	var out []string
	walkSteps(pb, func(s *Step) {
		if n, ok := s.Node.(*runNode); ok && n.File != "" {
			out = append(out, n.File)
		}
	})
	return out
}
