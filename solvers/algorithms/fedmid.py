"""FedMiD (FCO Alg. 2) and FedMiD-OSP (slides Alg. 4): federated mirror descent."""

from __future__ import annotations

import numpy as np

from fcocheck.solvers.algorithms.base import Env, FedHyper, RoundLog, ServerState
from fcocheck.solvers.algorithms.fused_steps import conj_spec, map_spec
from fcocheck.solvers.algorithms.primitives import primal_round

Array = np.ndarray


def _server(hp: FedHyper, env: Env):
    """w_{r+1} = ∇(h + η_s η_c K ψ)*(∇h(w_r) + η_s Δ_r)  (Alg. 2 line 10, literally)."""
    h, t = env.problem.h, hp.eta_s * hp.eta_c * hp.local_steps
    return lambda w, delta: env.composite(h.grad(w) + hp.eta_s * delta, t)


def fedmid_round(state: ServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                 clients: Array) -> tuple[ServerState, RoundLog]:
    """One round of Federated Mirror Descent.

    Algorithm:
        FCO Alg. 2: w^m_{r,0} = w_r; w^m_{r,k+1} = ∇(h + η_c ψ)*(∇h(w^m_{r,k}) − η_c g^m_{r,k});
        Δ_r = avg_{m∈S_r}(w^m_{r,K} − w^m_{r,0});
        w_{r+1} = ∇(h + η_s η_c K ψ)*(∇h(w_r) + η_s Δ_r).
        Δ_r is a primal difference added to the dual point ∇h(w_r), as the paper writes it;
        for Euclidean h (Federated PGD) the server step is prox_{η_s η_c K ψ}(w_r + η_s Δ_r).

    Guarantee:
        Thm 4.1: with small η_c and η_s = Θ(min{1/(η_c K L), B^{1/2}M^{1/2}/(η_c K^{1/2}R^{1/2}σ)}),
        E Φ(ŵ) − Φ* ≲ LB/R + σB^{1/2}/(MKR)^{1/2}. The toolkit's ŵ for this family is the
        average of the server iterates w_1..w_R.  Averaging primal iterates destroys the
        sparsity the prox created on clients ("curse of primal averaging", FCO §3.2, Fig. 2).

    References:
        FCO Alg. 2, §3.1–3.2, Thm 4.1 (Thm F.1); slides Alg. 2 (Federated PGD).

    """
    h = env.problem.h
    return primal_round(state, hp, env, rng, clients,
                        lambda W, G: env.composite(h.grad(W) - hp.eta_c * G, hp.eta_c),
                        _server(hp, env), prox_client=1, prox_server=1,
                        compiled=map_spec(h, env.problem.psi, env.problem.dim))


def fedmid_avg_round(state: ServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                     clients: Array) -> tuple[ServerState, RoundLog]:
    """One round of FedMiD with a simply averaging server (no server prox).

    Algorithm:
        Clients as FedMiD (Alg. 2): w^m_{r,k+1} = ∇(h + η_c ψ)*(∇h(w^m_{r,k}) − η_c g^m_{r,k});
        server: w_{r+1} = ∇h*(∇h(w_r) + η_s Δ_r) (for Euclidean h and η_s = 1: the average of the
        clients' last iterates).  FCO §3.1 describes FedMiD's server as averaging; Alg. 2 line 10
        applies ψ a second time, so the printed algorithm converges to argmin F + 2ψ when the
        client proxes add up to the server's (README "known disagreements").  This is the reading
        that applies ψ once per client step only.

    Guarantee:
        With K = 1, M = 1 and η_s = 1 it is sequential proximal gradient on F + ψ, so its fixed
        point is the certified optimum; FCO states no separate theorem for it.

    References:
        FCO §3.1, Alg. 2 (lines 1–9; line 10 replaced by plain aggregation).

    """
    h = env.problem.h
    return primal_round(state, hp, env, rng, clients,
                        lambda W, G: env.composite(h.grad(W) - hp.eta_c * G, hp.eta_c),
                        lambda w, delta: h.grad_conj(h.grad(w) + hp.eta_s * delta),
                        prox_client=1, prox_server=0, compiled=map_spec(h, env.problem.psi, env.problem.dim))


def fedmid_osp_round(state: ServerState, hp: FedHyper, env: Env, rng: np.random.Generator,
                     clients: Array) -> tuple[ServerState, RoundLog]:
    """One round of FedMiD-OSP: ψ-free client mirror steps, FedMiD's proximal server step.

    Algorithm:
        Slides Alg. 4: w^m_{r,k+1} = ∇h*(∇h(w^m_{r,k}) − η_c g^m_{r,k}) (no ψ on clients;
        plain SGD for Euclidean h); server as FedMiD:
        w_{r+1} = ∇(h + η_s η_c K ψ)*(∇h(w_r) + η_s Δ_r).

    Guarantee:
        None stated in FCO (an ablation); with M = K = 1 and Euclidean h it is sequential PGM.

    References:
        FCO §5 (FedMiD-OSP ablation); slides Alg. 4.

    """
    h = env.problem.h
    return primal_round(state, hp, env, rng, clients,
                        lambda W, G: h.grad_conj(h.grad(W) - hp.eta_c * G),
                        _server(hp, env), prox_client=0, prox_server=1,
                        compiled=conj_spec(h, env.problem.dim))
