"""The model zoo: JAX programs people really write, by theme.

Each theme module holds PROGRAMS, a dict name -> (function, make_inputs),
where make_inputs(rng) returns the function's positional arguments (pytrees
of NumPy arrays, small sizes). ALL merges them; a name may appear once.
"""

from zoo import (arrays, batched_linalg, control_flow, edge_cases,
                 grouped_matmuls, hunted,
                 hunted2, hunted3, hunted4, hunted5, hunted6, hunted7, hunted8,
                 hunted9, hunted10, hunted11, hunted12, hunted13, hunted14,
                 hunted15,
                 hunted16, hunted17, hunted18,
                 losses, models, modern_llm, numerics, optimizers, research)

THEMES = {
    "models": models.PROGRAMS,
    "optimizers": optimizers.PROGRAMS,
    "losses": losses.PROGRAMS,
    "control_flow": control_flow.PROGRAMS,
    "arrays": arrays.PROGRAMS,
    "numerics": numerics.PROGRAMS,
    "research": research.PROGRAMS,
    "edge_cases": edge_cases.PROGRAMS,
    "hunted": hunted.PROGRAMS,
    "hunted2": hunted2.PROGRAMS,
    "hunted3": hunted3.PROGRAMS,
    "hunted4": hunted4.PROGRAMS,
    "hunted5": hunted5.PROGRAMS,
    "hunted6": hunted6.PROGRAMS,
    "hunted7": hunted7.PROGRAMS,
    "hunted8": hunted8.PROGRAMS,
    "hunted9": hunted9.PROGRAMS,
    "hunted10": hunted10.PROGRAMS,
    "hunted11": hunted11.PROGRAMS,
    "hunted12": hunted12.PROGRAMS,
    "hunted13": hunted13.PROGRAMS,
    "hunted14": hunted14.PROGRAMS,
    "hunted15": hunted15.PROGRAMS,
    "hunted16": hunted16.PROGRAMS,
    "hunted17": hunted17.PROGRAMS,
    "hunted18": hunted18.PROGRAMS,
    "grouped_matmuls": grouped_matmuls.PROGRAMS,
    "modern_llm": modern_llm.PROGRAMS,
    "batched_linalg": batched_linalg.PROGRAMS,
}


def _merge():
    merged = {}
    for theme, programs in THEMES.items():
        for name, entry in programs.items():
            if name in merged:
                raise ValueError(f"zoo program {name} ({theme}) is defined "
                                 "twice")
            merged[name] = entry
    return merged


ALL = _merge()
