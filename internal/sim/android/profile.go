package android

// characteristics is ro.build.characteristics.
func (p *Phone) characteristics() string {
	if p.opts.Characteristics == "" {
		return "phone"
	}
	return p.opts.Characteristics
}
