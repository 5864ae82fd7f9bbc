package android

import "strings"

// Relabel simulates an app update that renames what the bundled apps'
// screens show: every view whose text or content-desc is from shows to
// instead, and every resource-id whose name (the part after ":id/") is
// from gets the name to. Tests use it to check that a stored selector or a
// learned skill notices the rename (Settings' "wifi_switch" becoming
// "wlan_switch", its title "Wi-Fi" becoming "WLAN"). Reset undoes it.
func (p *Phone) Relabel(from, to string) {
	p.locked(func() {
		if p.st.relabel == nil {
			p.st.relabel = map[string]string{}
		}
		p.st.relabel[from] = to
		p.changed()
	})
}

// relabeledLocked applies the renames to an activity's views.
func (p *Phone) relabeledLocked(v *view) *view {
	if len(p.st.relabel) == 0 || v == nil {
		return v
	}
	var walk func(v *view)
	walk = func(v *view) {
		if to, ok := p.st.relabel[v.text]; ok && v.text != "" {
			v.text = to
		}
		if to, ok := p.st.relabel[v.desc]; ok && v.desc != "" {
			v.desc = to
		}
		if pkg, name, ok := strings.Cut(v.resID, ":id/"); ok {
			if to, ok := p.st.relabel[name]; ok {
				v.resID = pkg + ":id/" + to
			}
		}
		for _, c := range v.children {
			walk(c)
		}
	}
	walk(v)
	return v
}
