package report

func (s *site) capabilitiesPage() ([]*page, error) { return []*page{{Path: "capabilities.html", Title: "Capabilities"}}, nil }
func (s *site) ablationsPage() ([]*page, error)    { return []*page{{Path: "ablations.html", Title: "Ablations"}}, nil }
func (s *site) computePage() ([]*page, error)      { return []*page{{Path: "compute.html", Title: "Compute"}}, nil }
func (s *site) reproductionPage() ([]*page, error) { return []*page{{Path: "reproduction.html", Title: "Reproduction"}}, nil }
func (s *site) quirksPage() ([]*page, error)       { return []*page{{Path: "known-issues.html", Title: "Known issues"}}, nil }
func (s *site) provenancePage() ([]*page, error)   { return []*page{{Path: "provenance.html", Title: "Provenance"}}, nil }
func (s *site) downloadsPage() ([]*page, error)    { return []*page{{Path: "downloads.html", Title: "Downloads"}}, nil }
