package sim

// TV makes the virtual phone a TV-sized device for android-tv targets: a
// 1920x1080 landscape screen at 320 dpi (xhdpi, as Android TV reports at
// 1080p) whose ro.build.characteristics is "tv".
func TV(o *Options) {
	o.Width, o.Height, o.Density = 1920, 1080, 320
	o.Model = "OpenPocket Virtual TV"
	o.Characteristics = "tv"
}
