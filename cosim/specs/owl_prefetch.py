"""Block entry: OWL's opportunistic prefetch engine of one memory controller (hdl/owl_prefetch.py,
sim/blocks/owl_prefetch.py; [OWL §4.4, §4.5])."""

from __future__ import annotations

from gpusched.blocks import BlockSpec
from hdl.params import inputs_of, outputs_of
from hdl.params.owl_prefetch import PARAMS, PrefetchShape


def _shape(p: dict) -> PrefetchShape:
    return PrefetchShape(p["BANKS"], p["LINES"], p["LOWER"], p["HIGHER"], p["SCHEME"])


def spec() -> BlockSpec:
    from cosim.stimuli.owl_prefetch import OwlPrefetchStimulus
    from hdl.owl_prefetch import OwlPrefetch
    from sim.blocks.owl_prefetch import OwlPrefetchTwin

    ports = PrefetchShape().ports()
    sh = PrefetchShape()
    return BlockSpec(
        name="owl_prefetch",
        doc="opportunistic prefetch engine of one memory controller: per-bank fetched vectors, "
            "degree C against a shift-EMA of the queue, scheme A/B stop and row-hold ([OWL §4.4])",
        params=PARAMS,
        make_rtl=lambda p: OwlPrefetch(p["BANKS"], p["LINES"], p["LOWER"], p["HIGHER"], p["SCHEME"]),
        make_twin=lambda p: OwlPrefetchTwin(p["BANKS"], p["LINES"], p["LOWER"], p["HIGHER"], p["SCHEME"]),
        make_stimulus=lambda p, seed: OwlPrefetchStimulus(_shape(p), seed),
        inputs=inputs_of(ports),
        outputs=outputs_of(ports),
        paper=f"[OWL §4.5]: {sh.paper_bits()} bits of fetched vectors per MC (1024 for 8 MCs) plus a "
              f"7-bit average; ours {sum(sh.storage_bits().values())} state bits per MC "
              f"(+ opened, stopped, 6-bit counts, 4 fraction bits of the average)",
        check=lambda p: _shape(p),
    )
