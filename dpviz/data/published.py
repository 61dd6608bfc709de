"""The papers' published numbers, for side-by-side tables with our reproductions.

Values are transcribed from the papers' text (figure labels included, as the
plain-text copies in ``shared/papers`` carry them). Accuracies are in percent.
FI's accuracies were obtained with the smooth-sensitivity leaf mechanism that
the 2021 addendum withdrew as not proven private.
"""

from __future__ import annotations

import pandas as pd

__all__ = [
    "FI_FIG4",
    "FI_FIG5",
    "FI_FIG6",
    "FI_FIG7",
    "FI_TABLE2",
    "FI_TABLE3",
    "FI_TABLE6",
    "FS_TABLE1",
    "FS_TABLE1_ALGORITHMS",
    "JPW_TABLE1",
    "RDT_SHARP_LABELED_FRACTION",
    "RDT_SHARP_TABLE2",
    "SYNTH",
]

#: The seven FI synthetic data sets, in the papers' order.
SYNTH = ("SynthA", "SynthB", "SynthC", "SynthD", "SynthE", "SynthF", "SynthG")

#: FI Table 2: smooth sensitivity e^{-jε} of the majority-label utility.
FI_TABLE2 = pd.DataFrame(
    {
        "j": [0, 1, 5, 10, 50, 100, 500],
        "0.01": [1.00000, 0.99004, 0.95122, 0.90483, 0.60653, 0.36788, 0.00674],
        "0.1": [1.00000, 0.90483, 0.60653, 0.36788, 0.00674, 0.00005, 1.93e-22],
        "1.0": [1.00000, 0.36788, 0.00674, 0.00005, 1.93e-22, 3.72e-44, 7.12e-218],
    }
).melt(id_vars="j", var_name="epsilon", value_name="paper")
FI_TABLE2["epsilon"] = FI_TABLE2["epsilon"].astype(float)

#: FI Table 3: % of empty leaves (mean, sd) with 1 tree and with 30 trees (disjoint data).
FI_TABLE3 = pd.DataFrame(
    [
        ("SynthA", 30000, 5, 49.8, 12.8, 68.5, 2.0),
        ("SynthB", 30000, 8, 79.1, 6.3, 90.3, 0.7),
        ("SynthC", 30000, 12, 95.0, 1.5, 98.5, 0.1),
        ("SynthD", 30000, 12, 95.7, 1.3, 98.5, 0.1),
        ("SynthE", 30000, 12, 63.3, 1.8, 73.7, 0.1),
        ("SynthF", 30000, 8, 79.2, 6.2, 89.9, 0.7),
        ("SynthG", 30000, 15, 98.7, 0.4, 99.7, 0.0),
        ("Adult", 30162, 9, 99.8, 0.0, 99.9, 0.0),
        ("Mushroom", 5644, 11, 99.9, 0.0, 99.9, 0.0),
        ("Nursery", 12960, 4, 0.2, 0.5, 7.2, 0.8),
    ],
    columns=["dataset", "rows", "depth", "empty_1", "sd_1", "empty_30", "sd_30"],
)


#: Fletcher (2021) addendum, Table 6: P(B) in % for counts (f_A, f_B), ε = 0.1.
FI_TABLE6 = pd.DataFrame(
    [
        (5, 10, 52.1, 62.2),
        (105, 110, 52.1, 62.2),
        (0, 1, 51.4, 52.5),
        (0, 10, 53.4, 73.1),
        (10, 50, 93.8, 98.2),
        (10, 60, 99.9, 99.3),
    ],
    columns=["f_A", "f_B", "original_paper", "new_paper"],
)

#: The columns of FS Table 1, in the paper's order.
FS_TABLE1_ALGORITHMS: tuple[str, ...] = (
    "ID3",
    "DiffPID3-InfoGain",
    "DiffPID3-Gini",
    "DiffPID3-Max",
    "SuLQ-based ID3",
)

_FS_TABLE1_VALUES = {
    1000: ((90.1, 1.5), (57.0, 17.3), (69.3, 24.3), (94.7, 15.3), (57.7, 18.1)),
    2000: ((92.8, 1.0), (60.5, 20.4), (93.0, 17.4), (100.0, 0.0), (57.0, 17.4)),
    3000: ((94.9, 0.7), (66.1, 23.5), (99.0, 7.0), (100.0, 0.0), (55.8, 15.9)),
    4000: ((96.5, 0.6), (74.7, 25.0), (99.75, 3.5), (100.0, 0.0), (59.0, 19.2)),
    5000: ((97.7, 0.5), (79.0, 24.7), (100.0, 0.0), (100.0, 0.0), (62.3, 21.5)),
}

#: FS Table 1: accuracy (%) and standard deviation over 200 runs of a single split with a
#: binary attribute and a binary class, B = 0.1, p_noise = 0.1, N = 5000.
FS_TABLE1 = pd.DataFrame(
    [
        {"n": n, "algorithm": algorithm, "mean": mean, "std": std}
        for n, values in _FS_TABLE1_VALUES.items()
        for algorithm, (mean, std) in zip(FS_TABLE1_ALGORITHMS, values, strict=True)
    ]
)

#: JPW Table I: private ID3 from noisy sum queries at a total ε' = 1 split over q queries;
#: accuracy (%) counts test rows left unclassified as wrong.
JPW_TABLE1 = pd.DataFrame(
    {
        "dataset": ["nursery", "votes", "mushroom"],
        "rows": [12960, 435, 8124],
        "queries": [176, 97, 267],
        "id3_accuracy": [98.19, 94.48, 100.0],
        "private_accuracy": [18.73, 2.53, 1.48],
    }
)


def _by_synth(**columns: list[float]) -> pd.DataFrame:
    frame = pd.DataFrame({"dataset": SYNTH, **columns})
    return frame.melt(id_vars="dataset", var_name="setting", value_name="paper")


#: FI Fig. 4 (ε = 1): smooth vs global sensitivity in the exponential mechanism.
FI_FIG4 = _by_synth(
    smooth_sensitivity=[90.6, 85.4, 86.1, 82.1, 87.8, 85.8, 82.3],
    exponential=[72.6, 66.8, 72.9, 65.0, 61.2, 59.0, 68.8],
)

#: FI Fig. 5a (ε = 1, 100 trees): disjoint data per tree vs all data with ε/τ.
FI_FIG5 = _by_synth(
    disjoint=[90.6, 85.4, 86.1, 82.1, 87.8, 85.8, 82.3],
    shared=[72.0, 79.3, 81.3, 74.2, 69.0, 69.3, 64.6],
)

#: FI Fig. 6 (ε = 1): depth m/2, FI's Theorem 2 ("ours") and m.
FI_FIG6 = _by_synth(
    half=[59.9, 74.7, 79.8, 80.2, 73.2, 68.1, 78.7],
    theorem2=[90.6, 85.4, 86.1, 82.1, 87.8, 85.8, 82.3],
    full=[69.9, 80.7, 86.9, 77.9, 79.3, 75.0, 73.5],
)

_FIG7_TREES = (1, 10, 30, 100, 300)
_FIG7 = {
    0.2: [
        [60.2, 64.9, 66.7, 60.7, 58.0, 58.1, 61.5],
        [68.2, 75.1, 77.5, 68.6, 64.4, 67.2, 67.0],
        [72.4, 79.2, 81.8, 72.8, 66.3, 69.7, 69.1],
        [73.5, 79.9, 80.9, 70.4, 65.2, 71.3, 67.1],
        [67.6, 67.3, 70.6, 69.1, 63.2, 55.9, 59.2],
    ],
    1.0: [
        [62.7, 63.7, 62.6, 64.0, 58.7, 58.5, 62.9],
        [71.6, 76.3, 71.4, 77.8, 65.8, 68.0, 75.5],
        [74.4, 82.1, 76.0, 83.9, 72.7, 72.5, 81.5],
        [90.6, 85.4, 86.1, 82.1, 87.8, 85.8, 82.3],
        [91.5, 86.2, 87.1, 83.4, 91.0, 87.3, 83.7],
    ],
}

#: FI Fig. 7: accuracy for 1, 10, 30, 100 and 300 trees at ε = 0.2 and ε = 1.
FI_FIG7 = pd.DataFrame(
    [
        {"dataset": name, "epsilon": eps, "n_trees": trees, "paper": acc}
        for eps, rows in _FIG7.items()
        for trees, row in zip(_FIG7_TREES, rows, strict=True)
        for name, acc in zip(SYNTH, row, strict=True)
    ]
)

#: RDT# (2013) labeled fractions found by its protocol (error ≤ 0.3 at ε = 0.5), §V.
RDT_SHARP_LABELED_FRACTION = {"mushroom": 0.02, "nursery": 0.20, "votes": 0.30}

#: RDT# Table II: standard deviations of the RDT# Classifier's error, per ε.
RDT_SHARP_TABLE2 = pd.DataFrame(
    {
        "epsilon": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        "mushroom": [0.019, 0.019, 0.0123, 0.015, 0.02, 0.015],
        "nursery": [0.042, 0.03, 0.031, 0.026, 0.028, 0.025],
        "votes": [0.030, 0.023, 0.018, 0.013, 0.014, 0.018],
        "synthetic": [0.026, 0.029, 0.023, 0.034, 0.029, 0.032],
    }
).melt(id_vars="epsilon", var_name="dataset", value_name="paper_std")
