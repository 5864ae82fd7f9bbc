package device

// FramesMade is how many screenshots p has decoded and scaled.
func FramesMade(p *Phone) int64 { return p.framesMade.Load() }
