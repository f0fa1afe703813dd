"""The spectrum items (docs/spectra.md): histograms over the limiting densities, outliers against η
with the BBP threshold, and the Gaussian-equivalence check of the trained CK as d grows."""

from . import ge_check, spectrum_large_step, spectrum_one_step, spectrum_outlier_eta

#: the spectrum items of the catalogue
ITEMS = (spectrum_one_step.ITEM, spectrum_large_step.ITEM, spectrum_outlier_eta.ITEM, ge_check.ITEM)
