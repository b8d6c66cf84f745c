"""The DMC trainer's extensions, one research idea a module (:mod:`cardjax.train.dmc.extension`
says what a module holds).  An extension is added by writing its module and naming it in
:data:`EXTENSIONS`; their order is the order their hooks run in (a later one sees what an
earlier one made: the counterfactual targets see the exact rewards' share)."""

from cardjax.train.dmc.extensions import (advice, counterfactual, exact_rewards, imitation,
                                          lambda_returns, oracle, prior, trick)

EXTENSIONS = tuple(m.EXTENSION for m in (
    trick, lambda_returns, oracle, exact_rewards, counterfactual, advice, imitation, prior))
