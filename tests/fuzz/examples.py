"""Valid example calls for the fuzz suite (tests/fuzz/test_fuzz_public_api.py).

``EXAMPLES``: for each public callable (by its canonical name, ``module.qualname`` where it is
defined), ONE valid call, as a function returning the keyword arguments (fresh objects on every
call: the suite mutates them). Small sizes, float64, explicit seeds. Most were first taken from
the calls the unit tests make (argument types, shapes and ranges), then trimmed by hand.

``EXCLUDED``: public callables that are not fuzzed, each with its reason.

``ALLOWED``: per function, mutations that are legitimately valid input (``"arg:kind"``, or
``"arg:*"`` for every kind of that argument), each with its reason: the call may then return,
but its result must still be finite.

``NOT_FUZZED_ARGS``: arguments of a function that are not mutated at all (with the reason in a
comment), e.g. the ``name`` used in an error message.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.cluster import ClusterSpec
from attention_theory.deora.checks.planted_teacher import check_fig4_more_heads_lower_loss
from attention_theory.deora.dm1 import DM1Config
from attention_theory.deora.dm1_search import DM1Size
from attention_theory.deora.dm2 import Teacher
from attention_theory.deora.heads_training import TrainSpec
from attention_theory.deora.model import softmax_jacobian_t
from attention_theory.deora.sentiment_encoder import SentimentEncoder
from attention_theory.deora.stability import LOORuns, StepData
from attention_theory.qin.bounds import BallConstants
from attention_theory.qin.model import Dims, QinConfig
from attention_theory.trauger.checks.linear_covering import check_maurey_tightness
from attention_theory.trauger.sparse_majority.authors_model import ModelShape
from attention_theory.trauger.sparse_majority.benchmark import record_products
from attention_theory.trauger.sparse_majority.protocol import ProtocolConfig
from attention_theory.trauger.sparse_majority.training import SweepConfig
from attention_theory.verify.outcomes import Outcome
from attention_theory.verify.registry import CheckRecord


def unif(shape: tuple[int, ...], lo: float = -1.0, hi: float = 1.0, seed: int = 0) -> np.ndarray:
    """Uniform float64 numbers in [lo, hi)."""
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


def ints(shape: tuple[int, ...], lo: int, hi: int, seed: int = 0) -> np.ndarray:
    """int64 integers in [lo, hi]."""
    return np.random.default_rng(seed).integers(lo, hi, size=shape, endpoint=True)


def signs(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """int64 entries in {-1, +1}."""
    return np.random.default_rng(seed).choice(np.array([-1, 1]), size=shape)


EXAMPLES: dict[str, Callable[[], dict[str, Any]]] = {
    'attention_theory.config.cached_per_scale': lambda: dict(maxsize=8),
    'attention_theory.config.pick': lambda: dict(smoke=((1, 1, 1), (1, 2, 1), (2, 3, 2), (3, 4, 5)), full=((1, 1, 1), (1, 2, 1), (2, 3, 2), (3, 4, 5), (4, 6, 10), (2, 8, 20))),
    'attention_theory.config.scale': lambda: dict(),
    'attention_theory.config.use_scale': lambda: dict(value='smoke'),
    'attention_theory.deora.bounds.a_eta': lambda: dict(eta=4.1662582708930707e-07, D=0.23984629678503042, B=0.6390091112677595, T=9, d=161, R=1.7530021972546281),
    'attention_theory.deora.bounds.beta1': lambda: dict(b=0.34052161089071725, T=2, d=2, R=1.0),
    'attention_theory.deora.bounds.beta2': lambda: dict(b=0.32610275627055074, T=2, d=2, R=1.0, H=1),
    'attention_theory.deora.bounds.beta3': lambda: dict(b=0.34052161089071725, T=2, d=2, R=1.0),
    'attention_theory.deora.bounds.cor2_bounds': lambda: dict(K=100, n=50, eta=2.981450020559208e-05, B_phi=1.0, gamma=2.0, corrected=True),
    'attention_theory.deora.bounds.cor2_g0': lambda: dict(K=100, B_phi=1.0, gamma=2.0),
    'attention_theory.deora.bounds.cor2_heads': lambda: dict(K=100, T=2, d=1, R=1.0, B2=1.0, B_phi=1.0, gamma=2.0),
    'attention_theory.deora.bounds.cor2_max_step': lambda: dict(K=100, T=2, d=1, R=1.0, B2=1.0, B_phi=1.0, gamma=2.0, H=224887165624, corrected=True),
    'attention_theory.deora.bounds.cor2_report': lambda: dict(T=2, d=1, R=1.0, B2=1.0, B_phi=1.0, gamma=2.0, K=100, n=50),
    'attention_theory.deora.bounds.cor2_rho': lambda: dict(K=100, T=2, d=1, R=1.0, B2=1.0, B_phi=1.0, gamma=2.0, H=224887165624, corrected=True),
    'attention_theory.deora.bounds.cor3_heads_needed': lambda: dict(g0K=0.051590476375439176, gK=0.010951471974053946, T=6, d=17, R=3.5152463301047625, inner=1.0),
    'attention_theory.deora.bounds.cor3_rho': lambda: dict(g0K=10.033702915153311, gK=0.12141048736770024, T=17, d=202, R=1.2949023882442285, H=157411912578955424, inner=1.0),
    'attention_theory.deora.bounds.cor3_step_size': lambda: dict(g0K=10.033702915153311, gK=0.12141048736770024, g01=1.2069535110067564, T=17, d=202, R=1.2949023882442285, H=157411912578955424, loss_init=0.06638341012552264, inner=1.0),
    'attention_theory.deora.bounds.cor4_rhs': lambda: dict(g0_K=2.0, eta=0.5, n=4),
    'attention_theory.deora.bounds.entry_max': lambda: dict(X=np.array([[-0.9990184599607286], [0.2942497209590174]])),
    'attention_theory.deora.bounds.glqc_distance': lambda: dict(b=0.5, T=2, d=2, R=1.0, H=16),
    'attention_theory.deora.bounds.glqc_sharp_constant': lambda: dict(c=0.5),
    'attention_theory.deora.bounds.kappa': lambda: dict(b=3.308683761694868, T=2, d=2, R=1.0, H=1),
    'attention_theory.deora.bounds.lemma11_heads': lambda: dict(D=0.2, B=0.05465764264114632, T=2, d=1, R=1.0),
    'attention_theory.deora.bounds.lemma11_rhs': lambda: dict(eta=0.01, n=10, K=5, L_target=0.1, D=0.3, B=0.2, T=2, d=1, R=1.0),
    'attention_theory.deora.bounds.min_heads': lambda: dict(sqrt_h_lower=60.15951002898374),
    'attention_theory.deora.bounds.prop1_sharper_hessian_rhs': lambda: dict(X=np.array([[-2.1766361890613144, 0.6524273017632473], [2.1774437138809923, -0.6541842961842809]]), U=np.array([[-0.021984719935378223, -0.07346568646998099], [0.04238006912587061, 0.14238712811932375]])),
    'attention_theory.deora.bounds.prop7_g0': lambda: dict(eps=0.001, B_phi=1.0, gamma=1.4142135623730936),
    'attention_theory.deora.bounds.prop7_heads': lambda: dict(eps=0.001, T=1, d=1, R=1.0, B2=1.0, B_phi=1.0, gamma=1.4142135623730951),
    'attention_theory.deora.bounds.rho': lambda: dict(D=0.2, B=0.05465764264114632, T=2, d=1, R=1.0, H=1843),
    'attention_theory.deora.bounds.rho_eta': lambda: dict(eta=1.1143430359098018e-05, D=0.002745031486911281, B=0.003144519535498513, T=14, d=15, R=1.0185905839623028, H=14128),
    'attention_theory.deora.bounds.row_norm_max': lambda: dict(X=np.array([[0.8868490764587924, 0.9493494832580337], [-0.05785496250096947, 0.6128622742800935], [0.6578901620545003, -0.34440266642056316], [-0.49737203549585546, -0.1147727834068699]])),
    'attention_theory.deora.bounds.step_constant_a': lambda: dict(D=0.2, B=0.05465764264114632, T=2, d=1, R=1.0),
    'attention_theory.deora.bounds.theta_k_bound': lambda: dict(eta=4.1662582708930707e-07, dist_k=0.7195388903550912, B=0.6390091112677595, T=9, R=1.7530021972546281),
    'attention_theory.deora.bounds.thm1_certificate': lambda: dict(D=0.2, B=0.5061350314105095, T=2, d=2, R=1.0, K=45, loss_target=0.6455635262417572, loss_init=0.6840990559487138, H=307),
    'attention_theory.deora.bounds.thm1_heads_needed': lambda: dict(D=0.2, B=0.5061350314105095, T=2, d=2, R=1.0),
    'attention_theory.deora.bounds.thm1_loss_bound': lambda: dict(D=0.2, eta=0.0013484321466991516, K=45, loss_target=0.6455635262417572),
    'attention_theory.deora.bounds.thm1_step_size': lambda: dict(D=0.2, B=0.5849934101184455, T=2, d=2, R=1.0, H=303, K=45, loss_target=0.711039125664032, loss_init=0.6704559761899915),
    'attention_theory.deora.bounds.thm2_max_step': lambda: dict(D=0.3, B=0.2, T=2, d=1, R=1.0, H=100, K=5, L_target=0.5, L0=0.7),
    'attention_theory.deora.bounds.thm2_rhs': lambda: dict(n=10, K=5, L_target=0.1, D=0.3, eta=0.01),
    'attention_theory.deora.bounds.tilde_betas': lambda: dict(D=0.2, B=0.05465764264114632, T=2, d=1, R=1.0, H=1),
    'attention_theory.deora.dm1.assemble': lambda: dict(cfg=DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), y=np.array([1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0]), relevant=np.tile(np.array([1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]), (10, 1)), j=np.tile(np.array([-1, -1, 0, 1, 2, 0, 1, 2]), (10, 1)), z=unif((10, 8, 9), -0.275, 0.254)),
    'attention_theory.deora.dm1.coefficients_to_noise': lambda: dict(cfg=DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), coef=unif((10, 8, 5), -0.033, 0.033), w=unif((10, 8, 4), -0.285, 0.276)),
    'attention_theory.deora.dm1.noise_bounds_ok': lambda: dict(cfg=DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), z=np.array([[[0.06666666666666667, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]])),
    'attention_theory.deora.dm1.patterns': lambda: dict(cfg=DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3, noise='uniform', sigma=0.1, relevant='uniform')),
    'attention_theory.deora.dm1.sample': lambda: dict(cfg=DM1Config(T=8, d=9, M=3, S=1.5, zeta=0.25, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3, noise='uniform', sigma=0.1, relevant='uniform'), n=50, seed=1, noise='gaussian'),
    'attention_theory.deora.dm1_search.bound_ratio': lambda: dict(lhs=torch.tensor(2.0699820480751074, dtype=torch.float64).requires_grad_(), rhs=2.0242282479997162),
    'attention_theory.deora.dm1_search.dm1_budget': lambda: dict(),
    'attention_theory.deora.dm1_search.dm1_dim': lambda: dict(size=DM1Size(name='smallest', cfg=DM1Config(T=2, d=4, M=1, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), y=1.0, part='')),
    'attention_theory.deora.dm1_search.dm1_instance': lambda: dict(size=DM1Size(name='smallest', cfg=DM1Config(T=2, d=4, M=1, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), y=1.0, part=''), z=torch.tensor([0.7750863204176426, 1.7439264080253507, 3.7683194276239895, -2.6063144632087214], dtype=torch.float64).requires_grad_()),
    'attention_theory.deora.dm1_search.dm1_noise': lambda: dict(size=DM1Size(name='smallest', cfg=DM1Config(T=2, d=4, M=1, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), y=1.0, part=''), X=torch.tensor([[[2.0, 0.0, 0.0, 0.0], [-0.04916819059037578, 0.049663236761448286, 1.9804464599509646, -0.3]]], dtype=torch.float64).requires_grad_()),
    'attention_theory.deora.dm1_search.dm1_relevant': lambda: dict(size=DM1Size(name='smallest', cfg=DM1Config(T=2, d=4, M=1, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform'), y=1.0, part='')),
    'attention_theory.deora.dm1_search.dm1_sizes': lambda: dict(configs={'C': DM1Config(T=4, d=6, M=1, S=3.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.2, noise='uniform', sigma=0.0, relevant='uniform'), 'B': DM1Config(T=6, d=6, M=2, S=2.0, zeta=0.5, Z_mu=0.1, Z_nu=0.1, Z_perp=0.3, noise='uniform', sigma=0.0, relevant='uniform')}),
    'attention_theory.deora.dm2.planted_teacher': lambda: dict(T=10, d=5, W_norm=3.0, seed=0),
    'attention_theory.deora.dm2.sample_dm2': lambda: dict(n=60, teacher=Teacher(W=np.array([[0.08789262472097835, -0.09234886467314633, 0.4476921076629162, 0.0733311891917389, -0.3744635679499748], [0.2527756508000837, 0.9115707075519051, 0.6620638295932757, -0.49195123054598194, -0.8846020749927987], [-0.4357045422935596, 0.028889226173364667, -1.625329658716354, -0.15294790260344288, -0.8709631015547981], [-0.5118968155998571, -0.38046819702771184, -0.2211119228231572, 0.2877533177194722, 0.7287765467219299], [-0.08985309017619375, 0.9552362190052663, -0.4650091703865208, 0.24572566887782252, 0.6315773958874331]]), U=unif((10, 5), -0.312, 0.277)), gamma_dm2=0.2, seed=10000),
    'attention_theory.deora.dm2.teacher_output': lambda: dict(Xs=unif((120, 10, 5), -3.114, 3.837), teacher=Teacher(W=np.array([[0.08789262472097835, -0.09234886467314633, 0.4476921076629162, 0.0733311891917389, -0.3744635679499748], [0.2527756508000837, 0.9115707075519051, 0.6620638295932757, -0.49195123054598194, -0.8846020749927987], [-0.4357045422935596, 0.028889226173364667, -1.625329658716354, -0.15294790260344288, -0.8709631015547981], [-0.5118968155998571, -0.38046819702771184, -0.2211119228231572, 0.2877533177194722, 0.7287765467219299], [-0.08985309017619375, 0.9552362190052663, -0.4650091703865208, 0.24572566887782252, 0.6315773958874331]]), U=unif((10, 5), -0.312, 0.277))),
    'attention_theory.deora.experiment_runs.smoke_dm1_runs': lambda: dict(),  # 4283.2 ms
    'attention_theory.deora.heads_training.app_g_dm1_config': lambda: dict(),
    'attention_theory.deora.heads_training.dm1_trials': lambda: dict(trials=1, n_train=5, n_test=5),
    'attention_theory.deora.heads_training.dm2_trials': lambda: dict(trials=2, n_train=20, n_test=20),
    'attention_theory.deora.heads_training.gamma_attn_dm1': lambda: dict(cfg=DM1Config(T=10, d=4, M=2, S=2.0, zeta=0.1, Z_mu=0.0, Z_nu=0.0, Z_perp=0.0, noise='gaussian', sigma=0.1, relevant='uniform')),
    'attention_theory.deora.heads_training.heads_output': lambda: dict(Us=torch.from_numpy(unif((1, 4, 10, 5), -0.015, 0.023)).requires_grad_(), Ws=torch.from_numpy(unif((1, 4, 5, 5), -0.003, 0.004)).requires_grad_(), Xs=torch.from_numpy(unif((1, 60, 10, 5), -3.974, 4.032))),
    'attention_theory.deora.heads_training.init_heads': lambda: dict(B=1, H=1, T=10, d=5),
    'attention_theory.deora.head_sweeps.load_figure': lambda: dict(fig='fig2'),
    'attention_theory.deora.heads_training.log_steps': lambda: dict(steps=1),
    'attention_theory.deora.heads_training.reduced_single_head_spec': lambda: dict(spec=TrainSpec(optimizer='adam', steps=5, lr_U=0.01, lr_W=0.01, eps_U=0.01, eps_W=0.01, momentum=0.9, betas=(0.9, 0.999)), H=16),
    'attention_theory.deora.head_sweeps.results_dir': lambda: dict(),
    'attention_theory.deora.head_sweeps.run_figure': lambda: dict(fig='fig2-random', scale='smoke', engine='heads', verify_prefix=0, progress=False),  # 358.2 ms
    'attention_theory.deora.heads_training.sweep': lambda: dict(data={'Xtr': unif((1, 100, 10, 4), -0.311, 2.315), 'ytr': signs((1, 100)).astype(float), 'rel_tr': ints((1, 100, 10), 0, 1).astype(float), 'Xte': unif((1, 300, 10, 4), -0.357, 2.301), 'yte': signs((1, 300)).astype(float), 'rel_te': ints((1, 300, 10), 0, 1).astype(float), 'config': {'T': 10, 'd': 4, 'M': 2, 'S': 2.0, 'zeta': 0.1, 'Z_mu': 0.0, 'Z_nu': 0.0, 'Z_perp': 0.0, 'noise': 'gaussian', 'sigma': 0.1, 'relevant': 'uniform'}, 'W_star': unif((1, 4, 4), seed=1), 'U_star': unif((1, 10, 4), seed=2)}, Hs=[4], optimizer='gd', steps=5, lr_rule='sqrtH', lr=1.0, engine='reduced', record_at=[0, 1, 2, 3, 4, 5]),  # relevant tokens and a teacher: every logged quantity is defined (finite)
    'attention_theory.deora.heads_training.train_heads': lambda: dict(Xtr=unif((1, 60, 10, 5), -3.974, 4.032), ytr=signs((1, 60)).astype(float), Xte=unif((1, 60, 10, 5), -3.114, 3.837), yte=signs((1, 60)).astype(float), H=1, spec=TrainSpec(optimizer='gd', steps=10, lr_U=1.0, lr_W=1.0, eps_U=1e-08, eps_W=1e-08, momentum=0.9, betas=(0.9, 0.999)), record_at=[10]),
    'attention_theory.deora.heads_engine.train_heads_batched': lambda: dict(Xtr=unif((2, 6, 10, 4), -0.5, 2.0), ytr=signs((2, 6)).astype(float), Xte=unif((2, 5, 10, 4), -0.5, 2.0, seed=1), yte=signs((2, 5)).astype(float), Hs=[1, 2], etas=[1.0, 1.0], steps=3, record_at=[0, 3], relevant=ints((2, 6, 10), 0, 1).astype(float), companions=True, progress=False),
    'attention_theory.deora.initialization.flin_min_loss_within': lambda: dict(radius=0.0, T=3),
    'attention_theory.deora.initialization.flin_tokens': lambda: dict(n=4, T=3, d=2, seed=0),
    'attention_theory.deora.initialization.good_init_constants': lambda: dict(theta0=torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), Xs=np.array([[[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], [[-1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]]]), ys=np.array([1.0, 1.0, 1.0, -1.0]), H=2),
    'attention_theory.deora.initialization.model_outputs': lambda: dict(theta=torch.from_numpy(ints((128,), 0, 0).astype(float)), Xs=torch.tensor([[[-1.0]], [[-1.0]], [[1.0]], [[-1.0]], [[-1.0]], [[1.0]]], dtype=torch.float64), H=64),
    'attention_theory.deora.initialization.prop7_instance': lambda: dict(cfg=None),
    'attention_theory.deora.initialization.prop7_instance_config': lambda: dict(),
    'attention_theory.deora.landscape.glqc_1d_ratio': lambda: dict(c=0.0, f=unif((801,), 0.0, 0.478), g0=0.4160390793699149, g1=0.8007597845042456),
    'attention_theory.deora.landscape.heads_grid': lambda: dict(),
    'attention_theory.deora.landscape.identical_head_ratio': lambda: dict(size=(2, 1), z=torch.tensor([-4.984654922470274, 1.2492131101839494, -1.284261415272045, -0.16637663725724153, -0.3857774512524699], dtype=torch.float64).requires_grad_()),
    'attention_theory.deora.landscape.identical_heads_grid': lambda: dict(),
    'attention_theory.deora.landscape.identical_heads_weak_convexity': lambda: dict(Hs=(1, 2), sizes=((2, 1),), restarts=1, steps=1),
    'attention_theory.deora.landscape.loss_hessian_decomposition': lambda: dict(theta=torch.tensor([1.3525436164319566, 2.747068938348957, -0.7489230659463131, 0.05782165436271394, 2.1484899305402396, -1.6386839792755195, 0.48836170333073087, -1.0336765739815403, -0.029732714987882963, 0.712129868996347], dtype=torch.float64), Xs=np.array([[[-0.4543237004373915, -0.25073070433061473], [-0.006424878755029969, -0.2838020505014878], [0.7128906560390629, 0.6334785648179729]], [[0.4995419175708647, -0.5460689593470006], [0.6019026861120647, -0.01193187096932769], [0.08475523773462931, 0.0963163614243807]], [[0.5941050484925084, -0.4670888574716839], [0.9298482187192179, -0.3018510767825117], [-0.8454915255367447, 0.17686438798213874]], [[-0.31844922628715616, -0.7154538078428102], [-0.6349307340574105, 0.644547849619998], [-0.8255691388911692, -0.5183169761242453]]]), ys=np.array([1.0, -1.0, 1.0, -1.0]), H=1, terms=(True, False), curvature_sign=1.0),
    'attention_theory.deora.landscape.max_U_norm': lambda: dict(theta=torch.tensor([0.07285966301755467, 0.20118993085758777, 0.22335799104314294, 0.10328744701515731, -0.8212084405930568, -0.7176967511076346, -0.5489892275205301, 0.1474624788913086], dtype=torch.float64), H=1, T=2, d=2),
    'attention_theory.deora.landscape.norm_2inf': lambda: dict(theta=torch.tensor([-0.9242491369177892, 0.4701151441374998, 0.46885696813256206, 0.09066921942409088, -4.0205499986718065, 0.49919548198051045, 0.7822817659123956, -1.0934661781379473], dtype=torch.float64), H=1, T=2, d=2),
    'attention_theory.deora.landscape.random_heads': lambda: dict(rng=np.random.default_rng(0), H=2, T=3, d=2, u_scale=3.0, w_scale=3.0),
    'attention_theory.deora.landscape.risk_batch': lambda: dict(thetas=torch.tensor([[0.004685408054907931, -1.8283610958014627, 1.219877128673461], [0.0019294084683559713, -1.8153374128754436, 1.2571999150598456], [-0.0008265911181959884, -1.8023137299494247, 1.2945227014462304], [-0.0035825907047479493, -1.7892900470234057, 1.3318454878326151], [-0.0063385902912999085, -1.7762663640973866, 1.3691682742189997], [-0.009094589877851868, -1.7632426811713677, 1.4064910606053842], [-0.01185058946440383, -1.7502189982453487, 1.4438138469917687], [-0.014606589050955788, -1.7371953153193296, 1.4811366333781535], [-0.017362588637507746, -1.7241716323933107, 1.5184594197645382], [-0.020118588224059708, -1.7111479494672917, 1.5557822061509228], [-0.022874587810611666, -1.6981242665412726, 1.5931049925373073]], dtype=torch.float64).requires_grad_(), Xs=torch.tensor([[[-0.08447987170594644], [-0.8978789671098009]]], dtype=torch.float64), ys=torch.tensor([-1.0], dtype=torch.float64), H=1),
    'attention_theory.deora.landscape.risk_closed_form': lambda: dict(theta=torch.tensor([1.4786736291973126, 5.592455916479589], dtype=torch.float64).requires_grad_(), Xs=torch.tensor([[[-1.0]]], dtype=torch.float64).requires_grad_(), ys=torch.tensor([1.0], dtype=torch.float64), H=1),
    'attention_theory.deora.landscape.risk_fn': lambda: dict(Xs=np.array([[[-0.5650855781442338, 0.7466272314371364], [0.15577642085383703, 0.18643604948339748]], [[0.334914893231564, 0.5734733659538412], [0.6318126182477469, 0.6785466703267644]], [[0.09462168215764549, 0.16238994213260666], [0.44101972041924803, 0.5126634343110958]], [[0.27145846415772823, -0.7504057397345684], [-0.2602565989994143, -0.5848377454032532]]]), ys=np.array([-1.0, 1.0, 1.0, 1.0]), H=2),
    'attention_theory.deora.landscape.weak_convexity_vs_heads': lambda: dict(Hs=(1, 2, 4, 8, 16, 32, 64, 128, 256), T=3, d=2, n=8, u_scale=2.0, w_scale=3.0, seed=104),
    'attention_theory.deora.lexicon_sentiment.generate': lambda: dict(n=50, seed=4),
    'attention_theory.deora.lexicon_sentiment.lexicon_dataset': lambda: dict(n_train=64, n_test=32, seed=0, max_len=24, gen_kwargs={'min_valence': 1.5, 'n_polar': 25, 'p_negate': 0.3}),
    'attention_theory.deora.max_margin.ntk_max_margin': lambda: dict(features=unif((6, 30), -0.577, 0.577), y=np.array([1.0, -1.0, 1.0, -1.0, -1.0, 1.0]), radius=1.0),
    'attention_theory.deora.max_margin.ntk_max_margin_dual': lambda: dict(features=torch.from_numpy(unif((12, 96), -0.283, 0.257)), ys=torch.tensor([-1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0], dtype=torch.float64)),
    'attention_theory.deora.mixture_bounds.eq112_rhs': lambda: dict(T=2, zeta=0.5, S=2.0, Z_mu=0.1, Z_nu=0.1, lead=1.0),
    'attention_theory.deora.mixture_bounds.eq113_rhs': lambda: dict(T=2, zeta=0.5, S=2.0, Z_mu=0.1, Z_nu=0.1, lead=0.0),
    'attention_theory.deora.mixture_bounds.eq114_rhs': lambda: dict(T=2, zeta=0.5, S=2.0, M=1, Z=0.3122498999199199, P=1.0, t_power=2.5),
    'attention_theory.deora.mixture_bounds.eq115_rhs': lambda: dict(T=2, zeta=0.5, S=2.0, M=1, Z_mu=0.1, Z_nu=0.1, Z=0.3122498999199199, P=0.01, factor=1.0),
    'attention_theory.deora.mixture_bounds.eq116_rhs': lambda: dict(T=2, zeta=0.5, S=2.0, M=1, Z_mu=0.1, Z_nu=0.1, Z=0.3122498999199199, P=0.0017353737966400327, denominator=2.0),
    'attention_theory.deora.mixture_bounds.eq118_bound': lambda: dict(T=8, R=1.5414038815073503, S=1.5, P=0.0010412146430366308),
    'attention_theory.deora.mixture_bounds.eq12_rhs': lambda: dict(T=27, d=30, R=66.99684939012084, norm=0.2823216404958807, const=400.0),
    'attention_theory.deora.mixture_bounds.gamma_attn': lambda: dict(T=10, S=0.5, Z_mu=0.0, eps=0.0),
    'attention_theory.deora.mixture_bounds.gamma_lin': lambda: dict(T=4, zeta=0.5, S=3.0, Z_mu=0.1),
    'attention_theory.deora.mixture_bounds.gamma_star': lambda: dict(T=6, zeta=0.5, S=2.0, M=2, Z_mu=0.1, Z_nu=0.1, Z=0.31024184114977144, P=0.0, t_power=2.5),
    'attention_theory.deora.mixture_bounds.gamma_star_parts': lambda: dict(T=2, zeta=0.5, S=2.0, M=1, Z_mu=0.1, Z_nu=0.1, Z=0.3122498999199199, P=0.0017353737966400327),
    'attention_theory.deora.mixture_bounds.lemma14_deviation': lambda: dict(T=6, R=2.0484750425621496, S=2.0, P=0.0022167054564013024, H=16, delta=0.1),
    'attention_theory.deora.mixture_bounds.noise_norm_bound': lambda: dict(S=1.5, M=3, Z_mu=0.05, Z_nu=0.05, Z_perp=0.3),
    'attention_theory.deora.mixture_bounds.ordering_crossover': lambda: dict(T=8, zeta=0.25, M=3),
    'attention_theory.deora.mixture_bounds.prop2_BPhi': lambda: dict(T=10, R=1.5306135298558476, S=1.5, P=0.011084318651544951, n=200, delta=0.05),
    'attention_theory.deora.mixture_bounds.prop3_threshold': lambda: dict(S=1.0, M=2, zeta=0.5, eps=2.0),
    'attention_theory.deora.mixture_bounds.radius_dm1': lambda: dict(S=1.5, Z=0.3042903097250923, Z_nu=0.05, M=3),
    'attention_theory.deora.mixture_bounds.saturation_threshold': lambda: dict(A=7.908401899224723, T=29, L=24, eps=1.0348199629348706e-05),
    'attention_theory.deora.mixture_bounds.score_gap': lambda: dict(S=2.0, Z_mu=0.5, Z_nu=0.5),
    'attention_theory.deora.mixture_bounds.sec53_lp': lambda: dict(p=0.5, L=-0.5, c=0.25, s_power=1.0, objective=[-1.0, 0.0, 0.0], h_max=50.0),
    'attention_theory.deora.mixture_bounds.thm3_head_condition_at_zero': lambda: dict(T=28, d=41, R=8.306607298305854, norm=0.07988502244444087, norm_2inf=0.012758500108178594),
    'attention_theory.deora.mixture_bounds.zbar': lambda: dict(Z_mu=0.05, Z_nu=0.05),
    'attention_theory.deora.model.attention_matrix': lambda: dict(X=torch.tensor([[0.050285818888151035, 1.8246394780464974]], dtype=torch.float64), W=torch.tensor([[-3.0472487691088506, 1.052539836343219], [-0.1316832913537822, -0.9302084625421884]], dtype=torch.float64)),
    'attention_theory.deora.model.attention_readout': lambda: dict(S=torch.tensor([[[[1.0]], [[1.0]], [[1.0]]]], dtype=torch.float64), Xs=torch.tensor([[[-1.6897742145532428, -1.0706458982850466]]], dtype=torch.float64), Us=torch.tensor([[[-1.0633831812605803, 1.7865580312943476]], [[1.399717711268956, -0.8081321502369327]], [[-1.9089487658930533, -0.9123830092392644]]], dtype=torch.float64)),
    'attention_theory.deora.model.empirical_risk': lambda: dict(theta=torch.tensor([0.8932704742777092, 4.584343404754567], dtype=torch.float64), Xs=torch.tensor([[[-1.0]], [[-1.0]], [[1.0]], [[-1.0]], [[-1.0]], [[1.0]]], dtype=torch.float64), ys=torch.tensor([-1.0, -1.0, 1.0, -1.0, -1.0, 1.0], dtype=torch.float64), H=1),
    'attention_theory.deora.model.grad_U': lambda: dict(X=torch.tensor([[-1.8473247989741095, 1.5665487746995206, -0.09643216015562055, 0.6803784532741461, -0.13656633397682774], [-0.3790985670748533, 0.46311015859758675, 0.824513527530113, -0.20252987069345152, -0.15278617857019708], [0.685698610809258, -0.8703406419471712, -1.5143835037313955, 0.39498186274953, -0.6705658236878794], [-1.9203405901180286, -0.8140536639453595, -0.467597558892747, -1.1932024774322612, -1.4924638840630338], [0.03663782694480509, 0.8972492567277476, -0.23313207796045685, -0.7435960295088448, 0.3849938087479083]], dtype=torch.float64), W=torch.tensor([[0.15870714110910375, -0.06638517473742529, 0.12052196750664992, 0.23076341666307518, -0.04579451276036193], [-0.18001154518590154, 0.07692676807519179, 0.05477595575662709, 0.24314100235930883, -0.2842470229217784], [-0.14639912793574164, -0.1854663149454828, -0.3836960398879997, 0.027976945087570308, 0.11679045690450912], [-0.16347657576394928, 0.3066105785204872, 0.18187221046539465, 0.13882341951745153, 0.08888817792747375], [0.2114668326612415, -0.29473530215364263, 0.1358479595212379, 0.13338010598091168, -0.3911538699681515]], dtype=torch.float64)),
    'attention_theory.deora.model.grad_W': lambda: dict(X=torch.tensor([[1.3877289445272596]], dtype=torch.float64), W=torch.tensor([[-1.0]], dtype=torch.float64), U=torch.tensor([[-0.11683967351503953]], dtype=torch.float64), jacobian=softmax_jacobian_t, transpose=False),
    'attention_theory.deora.model.head_attention': lambda: dict(Xs=torch.tensor([[[-0.7756195816707919]]], dtype=torch.float64), Ws=torch.tensor([[[0.4711137228656886]]], dtype=torch.float64)),
    'attention_theory.deora.model.head_scores': lambda: dict(Xs=torch.tensor([[[-0.7756195816707919]]], dtype=torch.float64), Ws=torch.tensor([[[0.4711137228656886]]], dtype=torch.float64)),
    'attention_theory.deora.model.head_size': lambda: dict(T=8, d=9),
    'attention_theory.deora.model.hessian_closed_form': lambda: dict(X=torch.tensor([[1.3877289445272596]], dtype=torch.float64), W=torch.tensor([[-1.0]], dtype=torch.float64), U=torch.tensor([[-0.11683967351503953]], dtype=torch.float64)),
    'attention_theory.deora.model.hvp_WU': lambda: dict(X=torch.tensor([[-0.5705885430127494]], dtype=torch.float64), W=torch.tensor([[-30.0]], dtype=torch.float64), a=torch.tensor([-0.2075412305914273], dtype=torch.float64), b=torch.tensor([0.42677117201679815], dtype=torch.float64), jacobian=softmax_jacobian_t),
    'attention_theory.deora.model.hvp_WW': lambda: dict(X=torch.tensor([[0.8185512190512149, -0.8519633155676554]], dtype=torch.float64), W=torch.tensor([[1.3895226875609183, 2.313534526362739], [-16.936494381241843, 24.614466128076888]], dtype=torch.float64), U=torch.tensor([[0.758212641190488, 0.8903982082451384]], dtype=torch.float64), c=torch.tensor([-0.4201664998820397, -0.040989828005249], dtype=torch.float64), b=torch.tensor([0.34777066371313936, -1.5982220889858958], dtype=torch.float64), jacobian=softmax_jacobian_t, terms=(True, True, True)),
    'attention_theory.deora.model.multi_head': lambda: dict(X=torch.tensor([[1.5072533111680444, -0.18324305623212622, 0.4597710766385077, 0.15308298855788152], [1.2581865117615758, -0.8625360044025363, 0.32892464750149364, 1.1314837643181488]], dtype=torch.float64), Ws=torch.tensor([[[0.04100706259489744, -0.3290090439854896, -0.25479518559816394, -0.5939100029460198], [1.1812621371817489, -0.6763157712223847, -1.1059897383424429, 0.8562668239879255], [0.24821180859673347, -0.023995429871159546, -0.1310489225763568, 0.4818939400833692], [0.35235176275131497, -1.004328063245725, -1.2466305444341523, -2.5815326641675194]]], dtype=torch.float64), Us=torch.tensor([[[-2.6098067559557543, 0.43789955333847724, 0.2350219921492417, 4.451249883864856], [1.2537005246001534, -0.3661648866403028, -1.0713766474245507, 3.1680930101237306]]], dtype=torch.float64)),
    'attention_theory.deora.model.multi_head_loop': lambda: dict(X=torch.tensor([[1.5072533111680444, -0.18324305623212622, 0.4597710766385077, 0.15308298855788152], [1.2581865117615758, -0.8625360044025363, 0.32892464750149364, 1.1314837643181488]], dtype=torch.float64), Ws=torch.tensor([[[0.04100706259489744, -0.3290090439854896, -0.25479518559816394, -0.5939100029460198], [1.1812621371817489, -0.6763157712223847, -1.1059897383424429, 0.8562668239879255], [0.24821180859673347, -0.023995429871159546, -0.1310489225763568, 0.4818939400833692], [0.35235176275131497, -1.004328063245725, -1.2466305444341523, -2.5815326641675194]]], dtype=torch.float64), Us=torch.tensor([[[-2.6098067559557543, 0.43789955333847724, 0.2350219921492417, 4.451249883864856], [1.2537005246001534, -0.3661648866403028, -1.0713766474245507, 3.1680930101237306]]], dtype=torch.float64)),
    'attention_theory.deora.model.multi_head_output': lambda: dict(Xs=torch.tensor([[[-0.17485698581106557, -0.31364022122237073], [-0.625640710083413, 0.8433291847209428], [1.3821887173678338, 1.3385559922275325]]], dtype=torch.float64), Ws=torch.tensor([[[0.4938598762809844, -0.7528399612183256], [0.18167903598870147, 0.599449652924883]], [[0.0895742263723986, 0.20389101694063036], [1.3773305503578244, 0.9105036212862325]]], dtype=torch.float64), Us=torch.tensor([[[-2.6877782635271648, -2.7981121403652915], [0.2020126674441803, 0.508281511528807], [-1.4109271105681933, -1.7274933047813597]], [[-0.9126167670783811, -0.14694914575176396], [-1.5939139297642806, -0.25435264428092613], [0.9640068545947826, 0.1532286805123021]]], dtype=torch.float64)),
    'attention_theory.deora.model.multi_head_output_bmm': lambda: dict(Xs=torch.from_numpy(unif((1, 60, 10, 5), -3.974, 4.032)), Ws=torch.from_numpy(unif((1, 4, 5, 5), -0.003, 0.004)).requires_grad_(), Us=torch.from_numpy(unif((1, 4, 10, 5), -0.015, 0.023)).requires_grad_()),
    'attention_theory.deora.model.multi_head_sum': lambda: dict(Xs=torch.tensor([[[-1.6897742145532428, -1.0706458982850466]]], dtype=torch.float64), Ws=torch.tensor([[[-0.2783487094955379, 1.5066584194778874], [-1.454005372611733, -2.5154971744242114]], [[0.1824216111092091, 0.5207754899509048], [1.1719500043982534, 2.1883401524376365]], [[1.2185873746128648, -0.36055312883242996], [-2.746646699042415, 2.3688976988079893]]], dtype=torch.float64), Us=torch.tensor([[[-1.0633831812605803, 1.7865580312943476]], [[1.399717711268956, -0.8081321502369327]], [[-1.9089487658930533, -0.9123830092392644]]], dtype=torch.float64)),
    'attention_theory.deora.model.pack_heads': lambda: dict(Us=torch.from_numpy(unif((1, 8, 9), -0.098, 0.088)), Ws=torch.from_numpy(ints((1, 9, 9), 0, 0).astype(float))),
    'attention_theory.deora.model.sample_bounded_tokens': lambda: dict(n=2000, T=2, d=1, R=2.0, seed=39, radius_factor=1.1),
    'attention_theory.deora.model.single_head': lambda: dict(X=torch.tensor([[0.5951425729215735], [0.6140235898285351], [-0.2949284472390533], [0.4782446396669524], [0.6968138429808941]], dtype=torch.float64), W=torch.tensor([[-0.08705659034203457]], dtype=torch.float64), U=torch.tensor([[1.487899430032279], [1.549128139289857], [0.6540699556647765], [0.6493117580913126], [-1.1714439049728935]], dtype=torch.float64)),
    'attention_theory.deora.model.softmax_jacobian_t': lambda: dict(v=torch.tensor([[-1.925791623478742]], dtype=torch.float64)),
    'attention_theory.deora.model.split_heads': lambda: dict(thetas=torch.from_numpy(unif((459,), -0.098, 0.098)), H=3, T=8, d=9),
    'attention_theory.deora.model.unpack_heads': lambda: dict(theta=torch.tensor([2.1352927446275456, -3.291841741248171], dtype=torch.float64), H=1, T=1, d=1),
    'attention_theory.deora.ntk.R0': lambda: dict(T=8),
    'attention_theory.deora.ntk.first_step': lambda: dict(Xs=unif((60, 6, 6), -0.293, 2.025), ys=signs((60,)).astype(float), H=1, alphas=np.array([0.5912040694370841])),
    'attention_theory.deora.ntk.first_step_closed_form': lambda: dict(Xs=unif((60, 6, 6), -0.293, 2.025), ys=signs((60,)).astype(float), H=3, alphas=np.array([0.9071774067951524, 1.8194767600023831, 0.5963216559682865])),
    'attention_theory.deora.ntk.ntk_features': lambda: dict(theta=torch.tensor([-0.057087419072987214, -0.3248865067972402, 0.03153373643306381, 0.3458368413584174, 0.28396248938752955, -0.1008334674911136, -0.19519883644440897, -0.5307425153648232, 0.08516817843514869, 0.34457386196034023, -0.377428924754092, 0.016627097061042095, -0.26849167122070616, 0.54422333663079, 0.025886720708417854, 0.048468974412443626, -0.37224292494136146, 0.13024667034027995, 0.45826942874085197, 0.17353042007935177, 0.21427963378308956, -0.3247803925570394, -0.03630829609071228, 0.30270608926193876, -0.0024972414837657903, 0.1025320628830435, -0.32297952820409925, -0.544182443367972, -0.07723406761224949, 0.014800130692155404, -0.46973866365608785, 0.04681960438956278], dtype=torch.float64), Xs=torch.tensor([[[0.3944798898361949, 0.22350156799699386], [-0.12795474512614047, -0.7660073056385254]], [[0.4687559619194614, 0.2277091692927237], [0.5828481272992502, 0.6497074110109605]], [[-0.543454243751844, -0.5132706218533442], [-0.6054777820667855, 0.740700010871]], [[0.2771614458792017, 0.05066933943596423], [0.9122630649682641, 0.3173816649427702]], [[0.37537873702034646, -0.8737199658859064], [-0.8458035870659978, -0.43158216090276524]], [[-0.39685076551271964, 0.8758472061669417], [-0.22889746406784206, 0.27091126709366575]], [[0.4870150172906448, 0.4465304694408901], [-0.32696422053054813, -0.8511048060712381]], [[-0.07974794197687471, -0.5015074815187471], [-0.899495141740262, 0.41939811185420695]]], dtype=torch.float64), H=4),
    'attention_theory.deora.ntk.ntk_margins': lambda: dict(theta=torch.from_numpy(unif((153,), -0.091, 0.097)), Xs=unif((30, 8, 9), -0.267, 1.511), ys=np.array([1.0, -1.0, 1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0]), H=1, target=torch.from_numpy(unif((153,), -0.25, 0.354))),
    'attention_theory.deora.ntk.reduced_features': lambda: dict(Xs=torch.tensor([[[2.0, 0.0, 0.0, 0.0], [0.049999962218214546, 0.05, 1.95, 0.3]]], dtype=torch.float64).requires_grad_(), v=torch.tensor([0.25031620419757794, -0.24965654140466212, 0.0007095255120997844, -6.510750872704455e-05], dtype=torch.float64)),
    'attention_theory.deora.ntk.target_directions': lambda: dict(S=2.0, M=2, T=6, d=6),
    'attention_theory.deora.ntk.theta_star': lambda: dict(alphas=np.array([1.0]), S=3.0, M=1, T=4, d=6),
    'attention_theory.deora.ntk.u_part': lambda: dict(X=torch.from_numpy(unif((60, 4, 6), -0.2, 3.033)), y=torch.from_numpy(signs((60,)).astype(float))),
    'attention_theory.deora.ntk.w_part': lambda: dict(X=torch.from_numpy(unif((4, 4, 6), -0.192, 3.033)).requires_grad_(), y=torch.tensor([1.0, -1.0, -1.0, -1.0], dtype=torch.float64), v=torch.tensor([0.75, -0.75, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), W=torch.tensor([[9.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 9.0, 0.0, 0.0, 0.0, 0.0], [9.0, 9.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], dtype=torch.float64)),
    'attention_theory.deora.figures.plot_sweep': lambda: dict(runs={1: {'step': np.array([0, 1, 10, 100], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.5, 0.4], [0.1, 0.2], [0.01, 0.02]]), 'margin_min': np.array([[0.0, 0.0], [-1.0, -1.2], [0.5, 0.4], [1.0, 1.1]])}, 4: {'step': np.array([0, 1, 10, 100], dtype=np.int64), 'train_loss': np.array([[0.175, 0.175], [0.125, 0.1], [0.025, 0.05], [0.0025, 0.005]]), 'margin_min': np.array([[0.0, 0.0], [-1.0, -1.2], [0.5, 0.4], [1.0, 1.1]])}}, keys=['train_loss', 'margin_min'], reference={'margin_min': 2.0}),  # 1268.4 ms
    'attention_theory.deora.sentiment_encoder.build_encoder': lambda: dict(vocab_size=100, n_heads=4, seed=1),
    'attention_theory.deora.sentiment_encoder.parameter_count': lambda: dict(model=SentimentEncoder),
    'attention_theory.deora.sst2.assets_message': lambda: dict(missing=[]),
    'attention_theory.deora.sst2.load_sst2': lambda: dict(source='hf'),
    'attention_theory.deora.sst2.missing_assets': lambda: dict(model='/tmp/pytest-of-root/pytest-144/test_missing_assets_lists_mode0/no-model', data='/tmp/pytest-of-root/pytest-144/test_missing_assets_lists_mode0/no-data'),
    'attention_theory.deora.sst2.quiet_transformers': lambda: dict(),
    'attention_theory.deora.sst2_substitute.run_substitute': lambda: dict(config={'d_model': 64, 'n_layers': 2, 'd_ff': 128, 'lr': 0.001, 'weight_decay': 0.01, 'batch_size': 32, 'max_len': 24, 'min_valence': 1.5, 'n_polar': 25, 'p_negate': 0.3, 'dtype': 'float32', 'n_train': 128, 'n_test': 100, 'epochs': 1, 'heads': [2], 'seeds': [0], 'evals_per_epoch': 2}, progress=False),
    'attention_theory.deora.sst2_substitute.substitute_config': lambda: dict(scale='smoke'),
    'attention_theory.deora.sst2_substitute.summarize_substitute': lambda: dict(result={'config': {'d_model': 64, 'n_layers': 2, 'd_ff': 128, 'lr': 0.001, 'weight_decay': 0.01, 'batch_size': 32, 'max_len': 24, 'min_valence': 1.5, 'n_polar': 25, 'p_negate': 0.3, 'dtype': 'float32', 'n_train': 64, 'n_test': 32, 'epochs': 1, 'heads': [1], 'seeds': [0], 'evals_per_epoch': 2}, 'runs': {1: [{'H': 1, 'seed': 0, 'steps_per_epoch': 2, 'step_loss': np.array([0.9982631206512451, 1.0891709327697754]), 'eval_step': np.array([0, 1, 2], dtype=np.int64), 'eval_epoch': np.array([0.0, 0.5, 1.0]), 'test_loss': np.array([0.9596352577209473, 0.7184168100357056, 0.6580142378807068]), 'test_acc': np.array([0.375, 0.65625, 0.65625])}]}}),
    'attention_theory.deora.sst2.write_fixture': lambda: dict(root='/tmp/tmpkymq6_s8'),
    'attention_theory.deora.sst2_reports.fixture_pipeline_numbers': lambda: dict(heads=(1, 4), builder=None, lr=5e-06, steps=2),
    'attention_theory.deora.stability.alpha_ki': lambda: dict(sd=StepData(dist=torch.from_numpy(unif((151, 8), 0.0, 0.206)), seg_loss=torch.from_numpy(unif((150, 11, 8), 0.141, 0.594)), seg_b=torch.from_numpy(unif((150, 11, 8), 0.2, 0.711)), b_end=torch.from_numpy(unif((150, 8), 0.2, 0.711)), b_full=torch.from_numpy(unif((150,), 0.2, 0.711)), loss_i=torch.from_numpy(unif((150, 8), 0.05, 0.685)), loo_at_full=torch.from_numpy(unif((150, 8), 0.141, 0.594)), loo_at_loo=torch.from_numpy(unif((150, 8), 0.153, 0.594)), full_loss=torch.from_numpy(unif((151,), 0.186, 0.678)), b_run=0.7134079588100798), cfg={'T': 3, 'd': 2, 'R': 1.0, 'H': 16, 'n': 8, 'steps': 150, 'eta': 0.08, 'signal': 0.5, 'label_noise': 0.1, 'init_scale': 0.2, 'seed': 0}),
    'attention_theory.deora.stability.certified_config': lambda: dict(),
    'attention_theory.deora.stability.certified_runs': lambda: dict(cfg=None),
    'attention_theory.deora.stability.certified_setup': lambda: dict(cfg={'T': 2, 'd': 1, 'R': 1.0, 'D': 0.2, 'n': 6, 'sets': 4, 'signal': 0.8, 'label_noise': 0.0, 'init_scale': 0.05, 'n_test': 1500, 'seed': 7}),
    'attention_theory.deora.stability.expansion_factor': lambda: dict(eta=1.0, beta3=torch.tensor([53.86255488427265, 53.86189462320839, 53.86123470616535, 53.86057513315745, 53.85991590419861, 53.8592570193027], dtype=torch.float64), beta2=torch.tensor([78.32866960339946, 78.32746503457565, 78.32626109942824, 78.32505779797314, 78.32385513022635, 78.32265309620368], dtype=torch.float64), L=torch.tensor([0.85356241547615, 0.8535453123440636, 0.853528209547974, 0.853511107087904, 0.8534940049638752, 0.8534769031759099], dtype=torch.float64), H=1),
    'attention_theory.deora.stability.init_heads': lambda: dict(H=3, T=3, d=2, scale=0.5, seed=737236),
    'attention_theory.deora.stability.lemma11_trajectory_curves': lambda: dict(cfg={'T': 3, 'd': 2, 'R': 1.0, 'H': 16, 'n': 8, 'steps': 150, 'eta': 0.08, 'signal': 0.5, 'label_noise': 0.1, 'init_scale': 0.2, 'seed': 0}),
    'attention_theory.deora.stability.loo_runs': lambda: dict(theta0=torch.from_numpy(unif((160,), -0.138, 0.159)), Xs=unif((8, 3, 2), -0.971, 0.85), ys=np.array([-1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0]), H=16, eta=0.08, steps=80, replace=(unif((8, 3, 2), -0.981, 0.466), np.array([-1.0, -1.0, -1.0, -1.0, 1.0, 1.0, -1.0, -1.0]))),  # 373.3 ms
    'attention_theory.deora.stability.monte_carlo': lambda: dict(cfg=None),  # 3419.9 ms
    'attention_theory.deora.stability.monte_carlo_config': lambda: dict(),
    'attention_theory.deora.stability.noisy_lin_tokens': lambda: dict(n=6, T=3, d=2, signal=1.0, seed=541694),
    'attention_theory.deora.stability.norm_2inf_batch': lambda: dict(thetas=torch.tensor([[-0.24427180690816544, 0.6695441411927624, -0.3212826642012446, -0.4754810086504888, -0.6966677241699657, 0.05957346232895821, -0.6932731006778513, 1.3150734711365657, -1.1216915827585696, 0.8686007981287102]], dtype=torch.float64), H=1),
    'attention_theory.deora.stability.practical_config': lambda: dict(),
    'attention_theory.deora.stability.practical_runs': lambda: dict(cfg={'T': 3, 'd': 2, 'R': 1.0, 'H': 16, 'n': 8, 'steps': 150, 'eta': 0.08, 'signal': 0.5, 'label_noise': 0.1, 'init_scale': 0.2, 'seed': 0}),
    'attention_theory.deora.stability.require': lambda: dict(ok=True, what='eta <= 1/beta~_2 = 0.107'),
    'attention_theory.deora.stability.rho_vec': lambda: dict(D=np.array([0.061555527349630976]), B=np.array([0.039849146702876204]), T=np.array([1.0]), d=np.array([1.0]), R=np.array([4.489173406731249]), H=np.array([43005768.052756466])),
    'attention_theory.deora.stability.run_tilde_betas': lambda: dict(sd=StepData(dist=torch.from_numpy(unif((151, 8), 0.0, 0.206)), seg_loss=torch.from_numpy(unif((150, 11, 8), 0.141, 0.594)), seg_b=torch.from_numpy(unif((150, 11, 8), 0.2, 0.711)), b_end=torch.from_numpy(unif((150, 8), 0.2, 0.711)), b_full=torch.from_numpy(unif((150,), 0.2, 0.711)), loss_i=torch.from_numpy(unif((150, 8), 0.05, 0.685)), loo_at_full=torch.from_numpy(unif((150, 8), 0.141, 0.594)), loo_at_loo=torch.from_numpy(unif((150, 8), 0.153, 0.594)), full_loss=torch.from_numpy(unif((151,), 0.186, 0.678)), b_run=0.7134079588100798), cfg={'T': 3, 'd': 2, 'R': 1.0, 'H': 16, 'n': 8, 'steps': 150, 'eta': 0.08, 'signal': 0.5, 'label_noise': 0.1, 'init_scale': 0.2, 'seed': 0}),
    'attention_theory.deora.stability.sample_losses': lambda: dict(thetas=torch.from_numpy(unif((9, 160), -0.135, 0.172)).requires_grad_(), Xs=torch.from_numpy(unif((9, 8, 3, 2), -0.901, 0.598)), ys=torch.from_numpy(signs((9, 8)).astype(float)), H=16),
    'attention_theory.deora.stability.segment_loo_losses': lambda: dict(runs=LOORuns(n=8, H=16, eta=0.08, final=torch.from_numpy(unif((9, 160), -0.182, 0.485)), losses=torch.from_numpy(unif((151, 9), 0.152, 0.678)), iterates=torch.from_numpy(unif((151, 9, 160), -0.182, 0.485))), Xs=unif((8, 3, 2), -0.901, 0.598), ys=np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0]), grid=11),  # 863.2 ms
    'attention_theory.deora.stability.step_data': lambda: dict(runs=LOORuns(n=8, H=16, eta=0.08, final=torch.from_numpy(unif((9, 160), -0.182, 0.485)), losses=torch.from_numpy(unif((151, 9), 0.152, 0.678)), iterates=torch.from_numpy(unif((151, 9, 160), -0.182, 0.485))), Xs=unif((8, 3, 2), -0.901, 0.598), ys=np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0])),  # 883.2 ms
    'attention_theory.deora.stability.target_direction': lambda: dict(H=1843, T=2, d=1),
    'attention_theory.deora.stability.test_losses': lambda: dict(thetas=torch.from_numpy(unif((6, 160), -0.165, 0.399)), Xt=unif((5000, 3, 2), -1.0, 0.998), yt=signs((5000,)).astype(float), H=16),  # 222.5 ms
    'attention_theory.deora.training.bad_init': lambda: dict(H=8, T=4, d=2, noise=0.0),
    'attention_theory.deora.training.cached_runs': lambda: dict(seed=200),
    'attention_theory.deora.training.easy_data': lambda: dict(n=16, T=8, d=2, seed=200),
    'attention_theory.deora.training.easy_target': lambda: dict(theta0=torch.from_numpy(unif((5120,), -0.047, 0.041)), H=256, T=8, d=2),
    'attention_theory.deora.training.flin_data': lambda: dict(n=4, T=4, d=2),
    'attention_theory.deora.training.flin_direction': lambda: dict(H=3, T=4, d=2),
    'attention_theory.deora.training.flin_margins': lambda: dict(m0=-0.7, eta=0.3, K=30, T=1),
    'attention_theory.deora.training.flin_realizability': lambda: dict(eps=0.00043939705607607906, m0=-1.0, H=3, T=4),
    'attention_theory.experiment.experiments': lambda: dict(),
    'attention_theory.experiment.find_experiment': lambda: dict(paper='julistiono',
                                                                 name='mirror-descent-training'),
    'attention_theory.experiment.positive_int': lambda: dict(text='2'),
    'attention_theory.foundations.covering.covering_number': lambda: dict(F=np.array([[0.0], [1.0], [2.0], [3.0], [4.0]]), eps=10.0),
    'attention_theory.foundations.covering.greedy_cover_size': lambda: dict(F=unif((12, 6), -0.973, 0.985), eps=1.002382919726508),
    'attention_theory.foundations.covering.sup_distances': lambda: dict(F=unif((12, 6), -0.973, 0.985)),
    'attention_theory.foundations.dudley.dudley_bound': lambda: dict(F=np.array([[1.0, 1.0, 1.0]])),
    'attention_theory.foundations.losses.clipped_cross_entropy': lambda: dict(x=np.array([0.23149155449758174, 0.08467823360651291]), y=np.array(1, dtype=np.int64), clip=5.0),
    'attention_theory.foundations.losses.cross_entropy': lambda: dict(x=np.array([-7.195683004351462, -10.244101434182939]), y=np.array(1, dtype=np.int64)),
    'attention_theory.foundations.losses.cross_entropy_grad': lambda: dict(x=np.array([-0.06399704392204457, -0.10878172085644096]), y=np.array(0, dtype=np.int64)),
    'attention_theory.foundations.losses.empirical_logistic_risk': lambda: dict(margins=np.array([13.98401692262676, -13.870265398317645, -2.712458393970631, -17.34788491842441, 7.882755143501273, -13.026561417060936, 7.72018787074769, -3.8944358006200686, 26.13081523822348, 49.11854469960979, -3.707848093157811])),
    'attention_theory.foundations.losses.logistic_loss': lambda: dict(z=np.array([53.22202676404023])),
    'attention_theory.foundations.losses.logistic_loss_d1': lambda: dict(z=np.array([53.22202676404023])),
    'attention_theory.foundations.losses.logistic_loss_d2': lambda: dict(z=np.array([-6.7951427129903])),
    'attention_theory.foundations.maurey.count_index_vectors': lambda: dict(d=4, K=1),
    'attention_theory.foundations.maurey.cover_columns_l1': lambda: dict(W=np.array([[1.1436604979987166], [0.0]]), Bw=1.1436604979987166, Bx=0.6384095248299382, eps=0.4340235759043006, K=1),
    'attention_theory.foundations.maurey.cover_flat_l1': lambda: dict(W=np.array([[0.0, 0.0, -0.0, 0.0], [-0.42226688347304847, 0.0, -0.0, 0.0], [0.4546384239985685, 0.708237307133369, -0.0, -0.0], [-0.0, 0.0, -0.026794566380363094, -0.1385668208900247]]), Bw=1.7505040018753737, Bx=1.3218566902763376, eps=2.039518301395716, K=1),
    'attention_theory.foundations.maurey.enumerate_index_vectors': lambda: dict(d=2, K=1),
    'attention_theory.foundations.maurey.greedy_maurey': lambda: dict(f=np.array([-0.01229246318319618, -0.0024372216217300458, 0.0029560484919595774]), atoms=np.array([[-0.0742809766508155, -0.13795536993060079, -0.14133745401202075], [-0.1215402800751884, -0.04365023146196979, 0.033633772206778545], [0.02867070547369091, 0.0850549819282446, -0.006250425636674598], [-0.031285142083099, 0.0358497702288619, 0.011637835337295887]]), K=20),
    'attention_theory.foundations.maurey.l1_ball_atoms': lambda: dict(dim=2, radius=1.1436604979987166),
    'attention_theory.foundations.maurey.l1_maurey_approx': lambda: dict(w=np.array([-0.314946484066458, -0.0888154953518411]), radius=1.0, K=2),
    'attention_theory.foundations.maurey.log_binomial': lambda: dict(n=19, K=17),
    'attention_theory.foundations.maurey.log_cover_bound_lemma33': lambda: dict(d=1, k=1, Bw=1.0, Bx=1.0, eps=0.05),
    'attention_theory.foundations.maurey.log_cover_bound_lemma34': lambda: dict(d=1, k=16384, Bw=1.0, Bx=1.0, eps=0.5, constant=1e+12),
    'attention_theory.foundations.maurey.log_cover_bound_lemma36': lambda: dict(d=1, k=1, Bw=1.0, Bx=1.0, eps=0.08958333333333333),
    'attention_theory.foundations.maurey.log_cover_size_lemma33': lambda: dict(d=1, k=1, Bw=1.0, Bx=1.0, eps=0.24791666666666667),
    'attention_theory.foundations.maurey.log_cover_size_lemma36': lambda: dict(d=1, k=1, Bw=1.0, Bx=1.0, eps=0.08958333333333333),
    'attention_theory.foundations.maurey.log_l2_ball_volume': lambda: dict(k=200, radius=0.5),
    'attention_theory.foundations.maurey.maurey_K': lambda: dict(Bw=1.0, Bx=1.0, eps=0.20833333333333331),
    'attention_theory.foundations.maurey.maurey_cover_points': lambda: dict(dim=3, radius=1.0, K=1),
    'attention_theory.foundations.maurey.maurey_rhs': lambda: dict(gamma=0.6218835927963828, b=1.0, f_norm=0.6218835927963827, K=1),
    'attention_theory.foundations.mirror.bregman': lambda: dict(W=np.array([[0.1257302210933933, -0.1321048632913019, 0.6404226504432821, 0.10490011715303971], [-0.535669373161111, 0.36159505490948474, 1.3040000451301372, 0.9470809631292422], [-0.7037352358069926, -1.2654214710460525, -0.6232744625373522, 0.0413259793472436]]), V=np.array([[-2.3250307746388343, -0.21879166393254573, -1.2459109472530652, -0.7322673547034516], [-0.5442589828573099, -0.31630015636915454, 0.4116305363741328, 1.0425133694426776], [-0.12853466294403426, 1.3664634705496859, -0.6651946734866135, 0.3515100700930197]]), p=2.0),
    'attention_theory.foundations.mirror.bregman_entrywise': lambda: dict(w=np.array([[2.559324822975408, -1.2197410519667944, -0.4616120405913143, 2.441155078314354], [1.9343106424707488, 5.0856226768788995, -6.271455234385765, 2.570576833569318], [-1.4468522603192466, 0.4040754564536425, 2.5131581546971917, 3.249759467074034], [3.118052070926508, 0.46532007323475827, 4.828988049054941, -0.8489226816484101]]), v=np.array([[-0.42294573921236017, 2.3980535666822584, -1.654117223941391, 6.482718776103741], [3.057619696063866, 6.526725967861181, -0.0797675614673394, -1.1492656507839216], [0.5011440065007767, 2.203729507818572, -1.7622830606220345, 1.1391052409173423], [-0.05041283676250277, 4.847045281729331, -1.988105436902597, 3.1384853151861574]]), p=1.5),
    'attention_theory.foundations.mirror.conjugate_exponent': lambda: dict(p=3.0),
    'attention_theory.foundations.mirror.directional_bregman': lambda: dict(W_ref=np.array([[1.0, 0.0], [0.0, 1.0]]), W=np.array([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]), p=1.5, batch_dims=1),
    'attention_theory.foundations.mirror.entrywise_lp': lambda: dict(W=np.array([[1.0, 0.0], [0.0, 1.0]]), p=1.5, batch_dims=0),
    'attention_theory.foundations.mirror.grad_psi': lambda: dict(W=np.array([[-2.3250307746388343, -0.21879166393254573, -1.2459109472530652, -0.7322673547034516], [-0.5442589828573099, -0.31630015636915454, 0.4116305363741328, 1.0425133694426776], [-0.12853466294403426, 1.3664634705496859, -0.6651946734866135, 0.3515100700930197]]), p=1.1),
    'attention_theory.foundations.mirror.grad_psi_inv': lambda: dict(U=np.array([[0.35458457537432914, -0.36346232719678373, 0.8002641129297765, 0.3238828756711903], [-0.7318943729535778, 0.6013277433392582, 1.1419282136501125, 0.9731808481105874], [-0.8388892869783191, -1.124909539050164, -0.7894773350371448, 0.2032879222857167]]), p=1.5),
    'attention_theory.foundations.mirror.md_step': lambda: dict(W=np.array([[-0.09919805171738795, 0.5452887139646817], [-0.6071856998706371, 0.12682784711186987], [-0.8922740434297903, 0.8414649723701431]]), G=np.array([[-0.18803508698068597, -0.33057100813532614], [-0.41050391297026284, 1.0107575001533344], [-0.7831809961440773, -2.0567028183423686]]), eta=0.2440718451698221, p=1.5),
    'attention_theory.foundations.mirror.psi': lambda: dict(W=np.array([[-1.5854366147985002, 0.8377952467279878, 2.1533466268777257, 0.22407055415850244], [-1.772069109967775, -2.196856376869997, -1.0909517355996667, 0.5248169070862506], [-2.4063416304262946, -0.498552722295382, -0.3794996724596402, 1.2890608224785167], [0.5116223056000139, 0.8470015279269425, -1.5583465389782372, -0.30892340065878865], [1.8685408420729188, 3.5594699021009206, -3.0008788022395367, 3.608312393580176]]), p=1.5),
    'attention_theory.foundations.mirror.psi_conj': lambda: dict(U=np.array([[0.005446133880445153, 7.8872053363626975, 0.0036655760002774224, -0.2042042881309115, 0.0060124590993196605], [2.4035675879298632, -0.01807326761064838, 0.002451035761669397, -0.0013214398620598157, -0.0009395916099530584], [-0.00820821650250156, 0.3564211284878112, -0.10540885599686817, -11.054318835426313, 13.925445364429727], [-3.0909909378182303, -0.5147863005759525, -4.765459204044375, -6.124350202775616, -0.0013676450513756013]]), p=1.5),
    'attention_theory.foundations.norms.dual_exponent': lambda: dict(p=2.0),
    'attention_theory.foundations.norms.entrywise_norm': lambda: dict(W=np.array([[-0.5227484414807474]]), p=2),
    'attention_theory.foundations.norms.frobenius_norm': lambda: dict(W=np.array([[-0.5227484414807474]])),
    'attention_theory.foundations.norms.operator_norm': lambda: dict(W=unif((7, 8), -35.623, 30.034), q=1, p=2),
    'attention_theory.foundations.norms.operator_norm_lower_bound': lambda: dict(W=np.array([[-7.428725695197075, 0.16298660064187143, 10.144281759626665, 2.5499799939577783, -0.43950290081894133, -2.216035767870851]]), q=2, p=2.0, restarts=3, seed=37422643),
    'attention_theory.foundations.norms.spectral_norm': lambda: dict(W=np.array([[-7.428725695197075, 0.16298660064187143, 10.144281759626665, 2.5499799939577783, -0.43950290081894133, -2.216035767870851]])),
    'attention_theory.foundations.norms.vector_norm': lambda: dict(x=np.array([0.18905338179353307]), p=2.0),
    'attention_theory.foundations.rademacher.generalization_gap': lambda: dict(true_risk=0.27, sample_losses=ints((50,), 0, 1).astype(float)),
    'attention_theory.foundations.rademacher.linear_class_rademacher_mc': lambda: dict(X=unif((50, 8), -0.99, 0.996), B=1.0, p=1.0, n_draws=4000, seed=49),
    'attention_theory.foundations.rademacher.rademacher_exact': lambda: dict(F=np.array([[1.0, 1.0, 1.0, 1.0], [-1.0, -1.0, -1.0, -1.0]])),
    'attention_theory.foundations.rademacher.rademacher_mc': lambda: dict(F=signs((9, 12)).astype(float), n_draws=20000, seed=43),
    'attention_theory.foundations.softmax.softmax': lambda: dict(v=np.array([0.13597475403099618, 0.12247210785859325])),
    'attention_theory.foundations.softmax.softmax_jacobian': lambda: dict(v=np.array([-1.4924638840630338])),
    'attention_theory.foundations.tensors.f64': lambda: dict(a=np.array([[-1.5036527644151223, -1.052435432782002, 0.5840120426474756, -0.588364848256607, 0.015163412593471346, 0.814011590869202], [0.12878910185462017, -0.1292163770236938, -0.47359920099725056, -0.08642260519711173, 0.38668425876103063, 1.7347666007652345], [1.0650031126157338, -0.19944702852059917, 0.9165646857829437, 0.11714239198880873, -1.4813830831122459, -0.10665150628305381], [0.9946871517023675, -0.5963627681016923, 0.9359904254410167, -0.306682928808508, 0.026489954793239873, -1.1911495707048543], [2.070178576907857, 0.45343721403099296, 1.0084298012263986, -0.45270930001215465, -1.4634046256774276, 1.2116085712575098]])),
    'attention_theory.foundations.thresholds.threshold_bound_ratios': lambda: dict(n=50, n_samples=200, delta=0.1, multiplier=0.05, rng=np.random.default_rng(0), n_draws=1000),
    'attention_theory.foundations.thresholds.threshold_loss_matrix': lambda: dict(x=np.array([13, 2, 16, 5, 13, 8, 1, 19, 10, 3, 19, 17], dtype=np.int64), y=np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1], dtype=np.int64)),
    'attention_theory.foundations.thresholds.threshold_sample': lambda: dict(n=50, rng=np.random.default_rng(0)),
    'attention_theory.foundations.thresholds.threshold_true_risks': lambda: dict(),
    'attention_theory.foundations.trend.exponent_outcome': lambda: dict(x=np.array([1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0, 1e+06]), ratio=np.array([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]), claim='support'),
    'attention_theory.foundations.trend.log_slope': lambda: dict(Ts=[1, 2, 4], groups=[[1.0, 2.0], [1.0, 4.0], [1.0, 8.0]], statistic='max', base=2, relative=True),
    'attention_theory.foundations.trend.power_exponent': lambda: dict(x=np.array([0.1, 0.01, 0.001, 0.0001, 1e-05]), ratio=[0.01580364654176979, 0.0015675763757477474, 0.00015663002903399585, 1.5661727058617414e-05, 1.5661599475035535e-06]),
    'attention_theory.julistiono.mirror_descent.joint_lp_md': lambda: dict(W0=np.array([[0.0, 0.0], [0.0, 0.0]]), v0=np.array([0.0, 0.0]), X=np.array([[[-2.7, 1.2], [1.4, 2.1], [1.3, -0.1]], [[0.4, -2.2], [-1.1, -0.4], [0.9, 0.1]]]), z=np.array([[-2.7, 1.2], [0.4, -2.2]]), Y=np.array([1.0, -1.0]), p=2.0, eta=0.1, steps=50, record_every=10),
    'attention_theory.julistiono.mirror_descent.lp_attgd': lambda: dict(W0=np.array([[-0.6517911526116896, -0.17471729232577715, 1.6637239913911968], [0.659147749832255, -1.6413972945846467, -0.005203264171931977], [-0.6234637409883934, 0.14863152325202633, -1.608187784186389]]), X=unif((4, 5, 3), -0.992, 0.911), z=np.array([[0.05299980382820608, 0.2672325046196405, -0.9621734818986053], [-0.9090383987025042, 0.16383819762414065, -0.38315301732292245], [0.12865447460871896, 0.4149182875160337, -0.9007168483202235], [0.19786134352025664, 0.9525220660920585, -0.2314143520788529]]), Y=np.array([1.0, -1.0, -1.0, -1.0]), v=np.array([-0.7145679176343923, 0.662949725194509, 0.22336148493456354]), p=2.0, eta=0.5, steps=3),
    'attention_theory.julistiono.mirror_descent.normalize_dual': lambda: dict(G=np.array([[0.0, 0.0], [0.0, 0.0]]), q=3.0),
    'attention_theory.julistiono.model.attention': lambda: dict(X=unif((4, 5, 4), -0.859, 0.945), z=np.array([[0.5772646295604241, -0.7036296846867994, 0.3551123699466604, 0.21346198489868795], [-0.18808133236798252, 0.8469527663538273, -0.4826744451834387, -0.11967373958869706], [0.3072468281703535, 0.16424110234882464, -0.11568619545416738, 0.9301832889596762], [0.7292373029608202, 0.46048197260587076, 0.5053723097532621, -0.027715291989943394]]), W=unif((201, 4, 4), -1.307, 3.15)),
    'attention_theory.julistiono.model.attention_output': lambda: dict(X=unif((4, 5, 3), -0.992, 0.911), z=np.array([[0.05299980382820608, 0.2672325046196405, -0.9621734818986053], [-0.9090383987025042, 0.16383819762414065, -0.38315301732292245], [0.12865447460871896, 0.4149182875160337, -0.9007168483202235], [0.19786134352025664, 0.9525220660920585, -0.2314143520788529]]), W=np.array([[0.345584192064786, 0.8216181435011584, 0.33043707618338714], [-1.303157231604361, 0.9053558666731177, 0.4463745723640113], [-0.5369532353602852, 0.5811181041963531, 0.36457239618607573]]), v=np.array([-0.7145679176343923, 0.662949725194509, 0.22336148493456354])),
    'attention_theory.julistiono.model.authors_synthetic_dataset': lambda: dict(seed=1, n=4, T=5, d=3),
    'attention_theory.julistiono.model.gradient_W': lambda: dict(W=np.array([[[2.0409191213851825, -2.5556650313141818, 0.41809884672577885], [-0.5677696061279298, -0.45264929211044586, -0.2155971630897659], [-2.019986129147251, -0.23193237764418947, -0.8652130762749417]], [[3.3229995166448827, 0.22578661322792176, -0.3526307943415954], [-0.2812874181513504, -0.6680463461089501, -1.0551505512051214], [-0.39080097723465473, 0.48194538850678587, -0.2385536065733667]], [[0.9577587029597641, -0.19980212906658, 0.024259565076664623], [1.545820851212812, 0.5451055226876446, -0.505228735614018], [-0.1828389745977349, 0.5405251317548021, 1.9350880340988528]], [[-0.2696203273419135, -0.24355867907910456, 1.0023136012756912], [-0.8864599431605871, -0.291720232439864, 0.8825389674564839], [0.5803500161908991, 0.09151670328235219, 0.6701043548284794]]]), X=unif((4, 5, 3), -0.992, 0.911), z=np.array([[0.05299980382820608, 0.2672325046196405, -0.9621734818986053], [-0.9090383987025042, 0.16383819762414065, -0.38315301732292245], [0.12865447460871896, 0.4149182875160337, -0.9007168483202235], [0.19786134352025664, 0.9525220660920585, -0.2314143520788529]]), Y=np.array([1.0, -1.0, -1.0, -1.0]), v=np.array([-0.7145679176343923, 0.662949725194509, 0.22336148493456354])),
    'attention_theory.julistiono.model.logits': lambda: dict(X=np.array([[[-2.7, 1.2], [1.4, 2.1], [1.3, -0.1]], [[0.4, -2.2], [-1.1, -0.4], [0.9, 0.1]]]), z=np.array([[-2.7, 1.2], [0.4, -2.2]]), W=np.array([[-0.18202065769647158, -0.04866365237596322], [-0.44883168573727233, 0.7288618110180421]])),
    'attention_theory.julistiono.model.loss_derivative': lambda: dict(u=np.array([0.4228924953083858]), loss='exponential'),
    'attention_theory.julistiono.model.loss_value': lambda: dict(u=np.array([9.015310028262315, 8.471028646642726]), loss='logistic'),
    'attention_theory.julistiono.model.make_gradient': lambda: dict(X=unif((4, 5, 3), -0.992, 0.911), z=np.array([[0.05299980382820608, 0.2672325046196405, -0.9621734818986053], [-0.9090383987025042, 0.16383819762414065, -0.38315301732292245], [0.12865447460871896, 0.4149182875160337, -0.9007168483202235], [0.19786134352025664, 0.9525220660920585, -0.2314143520788529]]), Y=np.array([1.0, -1.0, -1.0, -1.0]), v=np.array([-0.7145679176343923, 0.662949725194509, 0.22336148493456354]), loss='logistic', stable=True),
    'attention_theory.julistiono.model.objective': lambda: dict(W=np.array([[-0.8177418345984494, -0.4431048392130119], [-1.1627803450936054, 2.4373224549202726]]), X=np.array([[[-2.7, 1.2], [1.4, 2.1], [1.3, -0.1]], [[0.4, -2.2], [-1.1, -0.4], [0.9, 0.1]]]), z=np.array([[-2.7, 1.2], [0.4, -2.2]]), Y=np.array([1.0, -1.0]), v=np.array([0.3875176514367562, 2.9543553637013296]), loss='logistic'),
    'attention_theory.julistiono.model.objective_torch': lambda: dict(W=torch.tensor([[-3.6120284702866083]], dtype=torch.float64), X=torch.tensor([[[-1.0], [-1.0]]], dtype=torch.float64), z=torch.tensor([[-1.0]], dtype=torch.float64), Y=torch.tensor([1.0], dtype=torch.float64), v=torch.tensor([-1.0], dtype=torch.float64)),
    'attention_theory.julistiono.model.scores': lambda: dict(X=unif((4, 5, 3), -0.992, 0.911), Y=np.array([1.0, -1.0, -1.0, -1.0]), v=np.array([-0.7145679176343923, 0.662949725194509, 0.22336148493456354])),
    'attention_theory.julistiono.model.softmax_jacobian_times': lambda: dict(h=np.array([[3.4514955982187288, 19.876807186134183, 2.140855633091884], [17.65203757605789, 1.953480020319532, 0.18099990425155724]]), gamma=np.array([[3.326141175373585, 9.015310619868282, 0.2835000716065162], [8.471029849244255, 2.151836521194572, -0.8639350040705315]])),
    'attention_theory.julistiono.model.synthetic_dataset': lambda: dict(seed=1, n=4, T=5, d=3),
    'attention_theory.julistiono.model.two_sample_example': lambda: dict(),
    'attention_theory.julistiono.model.validate_data': lambda: dict(X=unif((4, 5, 3), -0.992, 0.911), z=np.array([[0.05299980382820608, 0.2672325046196405, -0.9621734818986053], [-0.9090383987025042, 0.16383819762414065, -0.38315301732292245], [0.12865447460871896, 0.4149182875160337, -0.9007168483202235], [0.19786134352025664, 0.9525220660920585, -0.2314143520788529]])),
    'attention_theory.julistiono.real_data.planted_sentiment': lambda: dict(n=20, seed=3),
    'attention_theory.julistiono.real_data.synthetic_shapes': lambda: dict(n=10, seed=1),
    'attention_theory.julistiono.real_data.tokenize': lambda: dict(text='A wonderful, moving film. Loved it.', vocab={'[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, 'a': 4, 'wonder': 5, '##ful': 6, 'moving': 7, 'film': 8, 'loved': 9, 'it': 10, 'great': 11, 'acting': 12, 'and': 13, 'story': 14, 'terrible': 15, 'plot': 16, 'boring': 17, 'too': 18, 'long': 19, 'awful': 20, 'the': 21}, max_len=12),
    'attention_theory.julistiono.svm.is_locally_optimal': lambda: dict(gamma=unif((6, 8), -0.686, 0.627), alpha=np.array([3, 7, 1, 7, 0, 5], dtype=np.int64), support=ints((6, 8), 0, 1).astype(float)),
    'attention_theory.julistiono.svm.lp_att_svm': lambda: dict(X=unif((6, 8, 10), -0.675, 0.826), z=unif((6, 10), -0.787, 0.816), alpha=np.array([0, 1, 6, 3, 3, 7], dtype=np.int64), p=2.0),
    'attention_theory.julistiono.svm.lp_v_svm': lambda: dict(X=unif((6, 8, 10), -0.821, 0.879), Y=np.array([-1.0, -1.0, -1.0, -1.0, 1.0, 1.0]), alpha=np.array([7, 6, 5, 5, 2, 1], dtype=np.int64), p=2.0),
    'attention_theory.julistiono.svm.select_alpha': lambda: dict(X=unif((6, 8, 10), -0.732, 0.825), z=unif((6, 10), -0.724, 0.632), W=unif((10, 10), -176.132, 129.773)),
    'attention_theory.julistiono.svm.svm_slacks': lambda: dict(X=unif((6, 8, 10), -0.721, 0.737), z=unif((6, 10), -0.675, 0.665), alpha=np.array([3, 7, 1, 7, 0, 5], dtype=np.int64), W=unif((10, 10), -0.735, 0.749)),
    'attention_theory.papers.check_module_names': lambda: dict(),
    'attention_theory.papers.check_modules': lambda: dict(),
    'attention_theory.provenance.default_device': lambda: dict(),
    'attention_theory.provenance.jsonable': lambda: dict(x='bound'),
    'attention_theory.provenance.package_version': lambda: dict(),
    'attention_theory.qin.bounds.ball_constants': lambda: dict(params0={'WQ': torch.tensor([[-0.662039159935597, 0.39899318318188814, 0.36588046793760076, -0.5015740647476605], [0.054299396718499315, 0.4298352340626887, 0.031084075506245125, 0.35344782738267955], [0.8396493204788703, 0.09684967740397811, -0.09913011775691342, -0.27260810542846187], [0.22912543719953168, -0.06955458199241295, -0.0631963854504852, -0.03721495155173121], [0.22976361911527424, -0.3770079854048214, -0.5408930204655141, -0.8605053585629657], [0.4237941606848511, 0.02608989248393244, 0.53390783871013, -0.0031665295640956833], [-0.2623915775329636, 0.1689735240544842, -0.027078093074103596, -0.44342194677763724], [-0.3129182907727183, 0.6246508181267462, 0.1252818544353775, 0.14721487125730431]], dtype=torch.float64), 'WK': torch.tensor([[-0.09777579768678961, -0.24385269032801546, 0.31524793683731456, -0.03699103708853038], [-0.2683852467353384, -0.04742159279128817, -0.32018007775385626, 0.06719135060202965], [0.3992422573625161, -0.2956007453146854, 0.5050665766398259, -0.2360392964769656], [0.054239390289295975, -0.2957072918678227, -0.07857199657363538, 0.016759990766380475], [-0.15368433655946984, -0.24850839868663013, -0.23966896114549582, -0.29032388427704203], [-0.5551071050010951, -0.0929737976194303, 0.14183084517199127, 0.32116858063799864], [0.22878536373963404, 0.868799659302848, 0.11267097260157923, -0.1613383954422963], [0.6617227718688419, -0.3702475076808122, 0.3424085425602488, -0.3376946718435944]], dtype=torch.float64), 'WV': torch.from_numpy(unif((8, 8), -0.075, 0.073)), 'WO': torch.from_numpy(unif((8, 8), -0.081, 0.101)), 'W1': torch.from_numpy(unif((8, 12), -0.95, 0.928)), 'W2': torch.from_numpy(unif((12, 8), -0.768, 0.766))}, X=np.array([[0.21853424621477519, -0.2368151812281565, -0.7754676743978577, 0.12113004492081354, -0.33080615105938993, 0.22856251441315326, -0.09795989876535466, -0.3299531436628031], [0.07870553780430797, 0.3733537849755976, -0.4214789109482375, -0.6653153349535511, 0.47007638057959045, -0.10431352523011693, 0.04050958456855418, -0.0250854678689131], [0.45969197115847465, 0.14712223063111654, 0.2676544584643862, 0.08688645965221087, 0.07558874014505516, -0.39255340190701027, -0.3270849520982888, -0.6488865679185987], [-0.25276186654864585, 0.17775182931537623, -0.29515904640984797, 0.3157340709787373, 0.0696265865990188, -0.4009243511236773, -0.649982874579688, 0.3600596139631021]]), cfg=QinConfig(n_seq=1, rho1=1, rho2=1, gamma=0.9, b=4.0), radius=0.34405583817007385, rbar=1.4142135623730951),
    'attention_theory.qin.bounds.choose_radius': lambda: dict(params0={'WQ': torch.tensor([[-0.662039159935597, 0.39899318318188814, 0.36588046793760076, -0.5015740647476605], [0.054299396718499315, 0.4298352340626887, 0.031084075506245125, 0.35344782738267955], [0.8396493204788703, 0.09684967740397811, -0.09913011775691342, -0.27260810542846187], [0.22912543719953168, -0.06955458199241295, -0.0631963854504852, -0.03721495155173121], [0.22976361911527424, -0.3770079854048214, -0.5408930204655141, -0.8605053585629657], [0.4237941606848511, 0.02608989248393244, 0.53390783871013, -0.0031665295640956833], [-0.2623915775329636, 0.1689735240544842, -0.027078093074103596, -0.44342194677763724], [-0.3129182907727183, 0.6246508181267462, 0.1252818544353775, 0.14721487125730431]], dtype=torch.float64), 'WK': torch.tensor([[-0.09777579768678961, -0.24385269032801546, 0.31524793683731456, -0.03699103708853038], [-0.2683852467353384, -0.04742159279128817, -0.32018007775385626, 0.06719135060202965], [0.3992422573625161, -0.2956007453146854, 0.5050665766398259, -0.2360392964769656], [0.054239390289295975, -0.2957072918678227, -0.07857199657363538, 0.016759990766380475], [-0.15368433655946984, -0.24850839868663013, -0.23966896114549582, -0.29032388427704203], [-0.5551071050010951, -0.0929737976194303, 0.14183084517199127, 0.32116858063799864], [0.22878536373963404, 0.868799659302848, 0.11267097260157923, -0.1613383954422963], [0.6617227718688419, -0.3702475076808122, 0.3424085425602488, -0.3376946718435944]], dtype=torch.float64), 'WV': torch.from_numpy(unif((8, 8), -0.075, 0.073)), 'WO': torch.from_numpy(unif((8, 8), -0.081, 0.101)), 'W1': torch.from_numpy(unif((8, 12), -0.95, 0.928)), 'W2': torch.from_numpy(unif((12, 8), -0.768, 0.766))}, X=np.array([[0.21853424621477519, -0.2368151812281565, -0.7754676743978577, 0.12113004492081354, -0.33080615105938993, 0.22856251441315326, -0.09795989876535466, -0.3299531436628031], [0.07870553780430797, 0.3733537849755976, -0.4214789109482375, -0.6653153349535511, 0.47007638057959045, -0.10431352523011693, 0.04050958456855418, -0.0250854678689131], [0.45969197115847465, 0.14712223063111654, 0.2676544584643862, 0.08688645965221087, 0.07558874014505516, -0.39255340190701027, -0.3270849520982888, -0.6488865679185987], [-0.25276186654864585, 0.17775182931537623, -0.29515904640984797, 0.3157340709787373, 0.0696265865990188, -0.4009243511236773, -0.649982874579688, 0.3600596139631021]]), cfg=QinConfig(n_seq=1, rho1=1, rho2=1, gamma=0.9, b=4.0), sigma_N_Z0=0.9979367804877611, sigma_d_W20=0.9999999999999994),
    'attention_theory.qin.bounds.gradient_residual_ratio': lambda: dict(c=BallConstants(xi=1.0000000000000002, xiF=2.0, T=4, dk=4, lam={'WQ': 1.8037632471602167, 'WK': 1.629469412714329, 'WV': 0.4941612814037005, 'WO': 0.524790284849143, 'W1': 2.303357002394241, 'W2': 1.3440558381700742}, rbar=3.235220627986499, rho1=1, rho2=1, beta=0.09999999999999998, radius=0.34405583817007385)),
    'attention_theory.qin.bounds.intermediate_bounds': lambda: dict(c=BallConstants(xi=1.1217715750493111, xiF=1.4142135623730951, T=2, dk=1, lam={'WQ': 0.8708201957846915, 'WK': 1.4817222801394634, 'WV': 2.138650188902095, 'WO': 1.56356974565077, 'W1': 1.797597189054805, 'W2': 2.306346473052699}, rbar=21.911958512631625, rho1=1, rho2=1, beta=0.5, radius=0.5)),
    'attention_theory.qin.bounds.lipschitz_constants': lambda: dict(c=BallConstants(xi=1.1217715750493111, xiF=1.4142135623730951, T=2, dk=1, lam={'WQ': 0.8708201957846915, 'WK': 1.4817222801394634, 'WV': 2.138650188902095, 'WO': 1.56356974565077, 'W1': 1.797597189054805, 'W2': 2.306346473052699}, rbar=21.911958512631625, rho1=1, rho2=1, beta=0.5, radius=0.5)),
    'attention_theory.qin.bounds.theorem2_constants': lambda: dict(params0={'WQ': torch.tensor([[-0.662039159935597, 0.39899318318188814, 0.36588046793760076, -0.5015740647476605], [0.054299396718499315, 0.4298352340626887, 0.031084075506245125, 0.35344782738267955], [0.8396493204788703, 0.09684967740397811, -0.09913011775691342, -0.27260810542846187], [0.22912543719953168, -0.06955458199241295, -0.0631963854504852, -0.03721495155173121], [0.22976361911527424, -0.3770079854048214, -0.5408930204655141, -0.8605053585629657], [0.4237941606848511, 0.02608989248393244, 0.53390783871013, -0.0031665295640956833], [-0.2623915775329636, 0.1689735240544842, -0.027078093074103596, -0.44342194677763724], [-0.3129182907727183, 0.6246508181267462, 0.1252818544353775, 0.14721487125730431]], dtype=torch.float64), 'WK': torch.tensor([[-0.09777579768678961, -0.24385269032801546, 0.31524793683731456, -0.03699103708853038], [-0.2683852467353384, -0.04742159279128817, -0.32018007775385626, 0.06719135060202965], [0.3992422573625161, -0.2956007453146854, 0.5050665766398259, -0.2360392964769656], [0.054239390289295975, -0.2957072918678227, -0.07857199657363538, 0.016759990766380475], [-0.15368433655946984, -0.24850839868663013, -0.23966896114549582, -0.29032388427704203], [-0.5551071050010951, -0.0929737976194303, 0.14183084517199127, 0.32116858063799864], [0.22878536373963404, 0.868799659302848, 0.11267097260157923, -0.1613383954422963], [0.6617227718688419, -0.3702475076808122, 0.3424085425602488, -0.3376946718435944]], dtype=torch.float64), 'WV': torch.from_numpy(unif((8, 8), -0.075, 0.073)), 'WO': torch.from_numpy(unif((8, 8), -0.081, 0.101)), 'W1': torch.from_numpy(unif((8, 12), -0.95, 0.928)), 'W2': torch.from_numpy(unif((12, 8), -0.768, 0.766))}, X=np.array([[0.21853424621477519, -0.2368151812281565, -0.7754676743978577, 0.12113004492081354, -0.33080615105938993, 0.22856251441315326, -0.09795989876535466, -0.3299531436628031], [0.07870553780430797, 0.3733537849755976, -0.4214789109482375, -0.6653153349535511, 0.47007638057959045, -0.10431352523011693, 0.04050958456855418, -0.0250854678689131], [0.45969197115847465, 0.14712223063111654, 0.2676544584643862, 0.08688645965221087, 0.07558874014505516, -0.39255340190701027, -0.3270849520982888, -0.6488865679185987], [-0.25276186654864585, 0.17775182931537623, -0.29515904640984797, 0.3157340709787373, 0.0696265865990188, -0.4009243511236773, -0.649982874579688, 0.3600596139631021]]), cfg=QinConfig(n_seq=1, rho1=1, rho2=1, gamma=0.9, b=4.0), loss0=1.0637117946939564e-07, sigma_N_Z0=0.9979367804877611, sigma_d_W20=0.9999999999999994),
    'attention_theory.qin.model.activation': lambda: dict(x=torch.tensor([[-0.26846532779832244, 0.22247036803034118, 0.16160309509711573, -0.17316879142344724, 0.04074273845687995, -0.009824481382801634, -0.2740157577637128, -0.2048249560519086], [-0.29773072931549716, 0.2559887477316475, 0.1643124651793545, -0.17583705202610436, 0.03306503653999559, -0.021808841441346122, -0.27920333943497394, -0.21493906995120624], [-0.2614250686265535, 0.21380125050464555, 0.15934844837300485, -0.17358267075251116, 0.042503440308329705, -0.007823229585439448, -0.27249776610887794, -0.20295021055484339], [-0.27087989332719525, 0.22886902586717756, 0.16951558342500722, -0.16788392192094, 0.039789890543639725, -0.007291166593745549, -0.2756250706826623, -0.20284938642912131]], dtype=torch.float64).requires_grad_(), gamma=0.5, b=4.0),
    'attention_theory.qin.model.activation_beta': lambda: dict(gamma=0.5, b=4.0),
    'attention_theory.qin.model.activation_prime': lambda: dict(x=torch.from_numpy(unif((6, 9), -0.001, 0.0)), gamma=0.5, b=4.0),
    'attention_theory.qin.model.activation_second': lambda: dict(x=torch.tensor([0.0], dtype=torch.float64), gamma=0.3, b=2.0),
    'attention_theory.qin.model.block_mask': lambda: dict(N=4, n_seq=2),
    'attention_theory.qin.model.dims_of': lambda: dict(params={'WQ': torch.tensor([[1.0363980470770335, 0.07167532284735223, 0.014869626449026138], [-0.1717953585816464, 0.38168807108060077, 0.693973262561562], [-0.3553012526121302, -0.03330746018560283, -0.09358940640560655], [-0.21411558553914506, -0.3958387334716716, 0.18779319056190052], [0.31827174989774254, 0.13446589616361718, -0.19503694061848614], [0.10774170219269778, 0.41347448461564745, 0.20154753392758362]], dtype=torch.float64), 'WK': torch.tensor([[0.42122863051950543, -0.05840122659984774, 0.3519570725646475], [0.2903774375317259, -0.21598902342785864, -0.03459596149217691], [-0.2572463720793636, 0.078598171883275, -0.043837109083916415], [0.045565563155199724, 0.009643875456708438, -0.21679040489911808], [0.22235899993117103, -0.43858109615353597, 0.015794949563470585], [-0.9222468722786821, -0.40069983943107607, 0.29679077914821395]], dtype=torch.float64), 'WV': torch.tensor([[-0.089316049382862, 0.12269129559346159, -0.3781987635436158, -0.610962906138522, -0.43342391212153303, 0.0001308911644068024], [-0.1639525861350191, 0.7155762893386257, 0.7699277003729483, 0.35330043275732587, -0.3318957155264052, 0.055483972607597534], [-0.18372210223142357, -0.21579194015595932, -0.1301501707070646, 0.01038487391149178, -0.10958681697584988, -0.020607524476792254], [-0.7468608731265769, -0.22131759963960773, 0.2724908924227664, 0.2204536637004898, -0.5303486103837454, 0.10067136773441515], [0.016236028759657527, -0.5133598535879993, 0.04738284767097056, 0.18049934153426264, -0.021844923368003456, 0.699147945891365], [-0.24552430527900643, 0.08792600357804951, 0.18347908623394485, 0.18509232457450078, -0.1983316803878809, 0.19984546629898278]], dtype=torch.float64), 'WO': torch.tensor([[0.11992141476883618, 0.9396229281257719, 0.5318494920165033, -0.012640471271929368, 0.5500163164289696, -0.3866302210681314], [0.10293386128266051, 0.6532306025608823, -0.7592115303838044, 0.4289813184272156, 0.20857902413278442, -0.25597218494825136], [0.343031372245705, -0.48928730362560957, 0.3733286707187171, -0.009067462980687118, 0.40166068576145647, -0.47554515027396427], [0.23659218446458352, 0.3331014413917926, -0.40808583321193104, 0.6540814104164334, -0.460604363091297, 0.8682330812569522], [0.8175443046294412, -0.33292217440381006, 0.6787073992643163, 0.14004494922838406, 0.14878805860024433, 0.146800856011814], [-0.7073837183986776, -0.008218937248056859, -0.1079365621537423, 0.22641240193602133, -0.8984434300163252, -0.004045322373582333]], dtype=torch.float64), 'W1': torch.from_numpy(unif((6, 8), -1.085, 0.81)), 'W2': torch.from_numpy(unif((8, 6), -0.805, 0.658))}),
    'attention_theory.qin.model.flat_gradient_fn': lambda: dict(X=torch.from_numpy(unif((6, 7), -0.664, 0.685)), Y=torch.from_numpy(unif((6, 7), -2.018, 2.454)), dims=Dims(d=7, dk=3, dv=5, m=9), cfg=QinConfig(n_seq=1, rho1=0, rho2=0, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.flat_loss': lambda: dict(X=torch.from_numpy(unif((6, 7), -0.825, 0.783)), Y=torch.from_numpy(unif((6, 7), -2.0, 3.131)), dims=Dims(d=7, dk=3, dv=5, m=9), cfg=QinConfig(n_seq=1, rho1=0, rho2=0, gamma=0.5, b=4.0)),
    # n_seq=1: with n_seq > 1 the logits P are -inf outside the diagonal blocks by design (the
    # documented attention mask), which the finite-output rule would flag
    'attention_theory.qin.model.forward': lambda: dict(params={'WQ': torch.tensor([[0.2113635743477314, -2.1349658066445834, 3.448401448179767], [2.749144166172848, 0.36426994867120915, 0.0721501481541455], [-0.7984211775769623, -0.964193459246376, -0.5701617573413125], [1.8497736922827448, -0.04491156360612339, -2.1663476660087215], [-1.155632769865731, -1.2596417552786392, -1.1715784002300298], [0.0838401162160439, -2.090214323256626, -0.3640365908378184], [0.8692155408525605, -1.1175715365076235, 3.225834194640766]], dtype=torch.float64).requires_grad_(), 'WK': torch.tensor([[-0.43823659295935025, 0.22230165061108495, -1.680963785664709], [-0.11749560312682851, 0.6430699277468462, 0.7421420689166583], [0.606894496339129, 1.5072710045205013, 0.8691018678496265], [-0.8195729915606326, 1.1222324803865986, 0.013487442960703614], [-1.538468925039279, -0.8441349645512686, 0.34493386146815225], [-1.0456804111425801, 0.9516232579702565, -0.3170956852360848], [1.2960243790304757, -1.1503613997978677, -1.0841203534172197]], dtype=torch.float64).requires_grad_(), 'WV': torch.tensor([[-0.2827778591143301, -1.9792385681550455, 0.711482649005063, 1.0475047654467762, 0.9168506469654939], [0.7403287958394651, -0.09809450363012627, 0.20142476502234605, 0.2819415766945235, -0.7237688873140936], [1.2714657037599262, -1.3544973246000505, 1.003195334152736, -0.8532225835336386, 0.3498515179875175], [1.1779036663328604, -1.3032189362242839, 1.0924224189514102, -0.5092826548397457, 0.42443253994199776], [-1.1357992442170717, 0.4697162116386033, -2.1659518956300716, 0.3454504921730501, -1.2662516450115016], [1.2107845762051874, -0.1970036571211197, -0.6003872295098646, -0.6785359402256272, -0.4102130949215091], [0.9516732105733542, 1.0925201241097686, 2.091774280567993, 1.0885988174132055, -0.3774604811941822]], dtype=torch.float64).requires_grad_(), 'WO': torch.tensor([[-0.10090684721025434, 0.020475206629821573, -0.1528216553442953, -0.4192429119221143, 0.019132780087248093, 1.8465937166807929, 1.4408287308041237], [0.1360503431547441, -2.807010540598531, 1.405598827829594, 0.5370202809491519, -2.001080365092494, -1.0075862440855863, 1.043106198136071], [-0.7553479192334334, -0.1701805978687669, 0.25460776671853536, 0.16998356718124433, -0.5976591070475212, 1.55503199141391, 0.5640698129554814], [-0.14366342268060123, -1.3739911657062713, -1.149634926647578, 0.44770966684997643, -1.3658088760022273, 0.9212946219389803, 1.42287284119302], [-0.11831318354313258, -0.40905702873680033, -2.9077711595511118, -1.5799502372366014, -1.4493711523377641, 0.45121430683369385, 2.84834970522314]], dtype=torch.float64).requires_grad_(), 'W1': torch.from_numpy(unif((7, 9), -2.758, 3.283)).requires_grad_(), 'W2': torch.from_numpy(unif((9, 7), -2.082, 1.634)).requires_grad_()}, X=torch.from_numpy(unif((6, 7), -0.676, 0.795)), cfg=QinConfig(n_seq=1, rho1=0, rho2=0, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.gradients': lambda: dict(params={'WQ': torch.tensor([[-0.5118174000435128, -0.7341259383455958, 0.00520648194672093], [-1.395281227229183, -1.2496855288422626, 0.18674712438899504], [-0.8171039279721747, -1.720941709635633, 0.4606529512754287], [-0.673822040424738, 0.3315435764362377, -1.6757610503307248], [1.9206839824044672, 0.6676509362208642, 0.6196401547975701], [0.21945694180465816, -1.154498403071006, 0.22559376315398552], [2.4566500473973467, 0.6359210514788904, -0.7135041090305545]], dtype=torch.float64), 'WK': torch.tensor([[-0.6054658953920161, -1.0652804316540778, 1.4733839424397528], [-0.7485986457769809, 0.8789920216690172, -0.9624554065244656], [2.0369223104377414, 0.5408603936430798, -0.2350268451449095], [-2.51960453594693, -0.35648825063840206, 0.5344342417149596], [1.7062618187619365, 0.8383373946167691, 0.5122684567726842], [1.4263060882531369, 0.404082688189345, 0.2025190463058919], [-0.8995018460836316, 0.015417900538779741, 0.8352636411503411]], dtype=torch.float64), 'WV': torch.tensor([[1.8253438724630677, -1.554569970663337, -0.45481115392557275, 0.5308184125652067, -0.460437919419615], [0.5549734761335905, -0.45411759843412364, 1.0384071530636156, -0.10976338178382763, -1.5685903971525563], [2.6285560460044377, -1.3901519322778417, 0.8379849946446901, -0.491413926881571, 1.2517284313322519], [0.37226493881634914, -0.1837223296942653, -0.8475772668991994, 1.4093870075167139, -1.6122600104785239], [-0.27242912196846325, 0.17894993209694493, 0.9087343905040234, 1.2415425291693936, 0.9578244026141849], [-1.770427676470361, -0.7895622171498268, -3.292358579402015, -1.83372700741772, 1.432896278511015], [-1.3727580337180707, -0.6985570316682037, 2.0330502874214136, 1.8527891565784014, 0.6424675586130872]], dtype=torch.float64), 'WO': torch.tensor([[-2.551375191828636, -0.4845058929458943, -0.9472496112887273, -0.06496782947585014, 1.3510918414315154, -0.5385227886645929, -1.6190271120537925], [-1.614665997693325, -0.310765926096162, 0.36060120755202185, 0.6777713594499905, 0.4640363754154215, -0.055181705177513696, -0.03334447197205315], [1.7327740979346409, 2.0591123128175988, 3.9613605274176313, 2.186955143170083, 2.616232459945565, -0.9707262004655507, 0.7098974266408363], [2.4586566889333246, 0.9602497059292482, 0.3454218498801778, -0.05923788336281103, 0.11377823541719531, -0.29788237615533897, -1.4434720613853684], [-1.6439347595718743, -1.7269693719967953, 2.584795506989357, 0.35016640104038, -0.5615231839191983, 3.3488613392594258, 0.4441156471478191]], dtype=torch.float64), 'W1': torch.from_numpy(unif((7, 9), -2.177, 3.351)), 'W2': torch.from_numpy(unif((9, 7), -3.556, 1.992))}, X=torch.from_numpy(unif((6, 7), -0.825, 0.783)), Y=torch.from_numpy(unif((6, 7), -2.0, 3.131)), cfg=QinConfig(n_seq=1, rho1=0, rho2=0, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.init_params': lambda: dict(dims=Dims(d=7, dk=3, dv=5, m=9), rng=np.random.default_rng(0), qk_scale=1.0, vo_scale=1.0, ffn_scale=1.0),
    'attention_theory.qin.model.loss': lambda: dict(params={'WQ': torch.tensor([[0.04803891773724503, -0.00643719066959394, 0.021857777864681873], [0.005143485938071072, -0.039973924421496235, -0.06237674338921061], [0.014645234382448562, -0.039934841125664394, -0.0022391278478754257], [-0.007456621879486243, -0.01933309699724367, -0.13712458798283542], [0.05092466574131886, -0.0828337846667601, 0.04979808576938068], [0.020135572975207582, 0.06011901684500963, 0.011148153232130947], [-0.016188296314295726, -0.022628705523172025, 0.04786118955536647]], dtype=torch.float64).requires_grad_(), 'WK': torch.tensor([[-0.011095641384133093, 0.008120179487883124, -0.0072432444986479634], [-0.03984388089641646, 0.06591526448192206, -0.01990397416016982], [0.05683741648654193, 0.02566113036466105, -0.0346749189876831], [0.003001422522620484, -0.03566293511772623, 0.010419090323393351], [0.006712048777644489, -0.045486206600283796, 0.015796127594093972], [0.02414304478210984, -0.0029658101912482483, 0.010392055426972711], [0.036396881372026735, 0.010603208976938071, 0.0021169941337947722]], dtype=torch.float64).requires_grad_(), 'WV': torch.tensor([[0.017966913668180463, 0.048550129821735136, 0.0007020402025226633, -0.0358649237285118, -0.00840524317631099], [-0.044370207590625516, 0.014913180424453946, 0.02171871086948487, 0.03686069882762461, -0.0036395047900653513], [0.018784534009008536, 0.06283355092854435, -0.0680883529862, -0.059521888323342674, -0.012301483362129825], [-0.04940793389593632, 0.02949434135035856, 0.03653720581894046, -0.06821081612756998, -0.023574893033955806], [-0.008892079466367957, 0.048073928623805925, 0.05298058996293882, -0.003489100723186532, -0.04516653414064178], [0.03087771839078173, -0.01620003117699249, -0.00597551852284274, -0.03231273675354109, -0.0025040878986458993], [-0.03433416512937777, 0.006978313922187354, 0.003738188336586916, -0.01762960838085156, 0.0446034167894696]], dtype=torch.float64).requires_grad_(), 'WO': torch.tensor([[0.006474894116383426, 0.05212647313476643, -0.009006149021336219, -0.018718367006858416, -0.031830628897347016, 0.00023034531634785112, -0.04720035820618265], [0.011708396052368297, 0.024683619055134106, 0.014163508772248243, 0.04085878632934645, 0.004318908619194232, 0.0547433620137996, -0.0230070898338565], [-0.004283482949878672, -0.0317997913842036, 0.007401112091726911, -0.03706552707915483, -0.005918241641738476, -0.008276009442625933, 0.01691096939079474], [0.006664332151139056, 0.05772664505159039, -0.013335800762473456, 0.06706609526695513, -0.0318848293685619, 0.0014507162042607115, -0.03041175872591972], [0.10895050010188782, -0.04511424069848014, -0.03895657719705835, 0.030950409670033603, 0.07526055217553032, 0.041789770347656935, 0.032257026992418454]], dtype=torch.float64).requires_grad_(), 'W1': torch.from_numpy(unif((7, 9), -0.071, 0.09)).requires_grad_(), 'W2': torch.from_numpy(unif((9, 7), -0.057, 0.084)).requires_grad_()}, X=torch.from_numpy(unif((6, 7), -0.793, 0.708)), Y=torch.from_numpy(unif((6, 7), -2.459, 2.831)), cfg=QinConfig(n_seq=3, rho1=0, rho2=0, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.n_params': lambda: dict(dims=Dims(d=7, dk=3, dv=5, m=9)),
    'attention_theory.qin.model.output': lambda: dict(params={'WQ': torch.tensor([[0.04803891773724503, -0.00643719066959394, 0.021857777864681873], [0.005143485938071072, -0.039973924421496235, -0.06237674338921061], [0.014645234382448562, -0.039934841125664394, -0.0022391278478754257], [-0.007456621879486243, -0.01933309699724367, -0.13712458798283542], [0.05092466574131886, -0.0828337846667601, 0.04979808576938068], [0.020135572975207582, 0.06011901684500963, 0.011148153232130947], [-0.016188296314295726, -0.022628705523172025, 0.04786118955536647]], dtype=torch.float64).requires_grad_(), 'WK': torch.tensor([[-0.011095641384133093, 0.008120179487883124, -0.0072432444986479634], [-0.03984388089641646, 0.06591526448192206, -0.01990397416016982], [0.05683741648654193, 0.02566113036466105, -0.0346749189876831], [0.003001422522620484, -0.03566293511772623, 0.010419090323393351], [0.006712048777644489, -0.045486206600283796, 0.015796127594093972], [0.02414304478210984, -0.0029658101912482483, 0.010392055426972711], [0.036396881372026735, 0.010603208976938071, 0.0021169941337947722]], dtype=torch.float64).requires_grad_(), 'WV': torch.tensor([[0.017966913668180463, 0.048550129821735136, 0.0007020402025226633, -0.0358649237285118, -0.00840524317631099], [-0.044370207590625516, 0.014913180424453946, 0.02171871086948487, 0.03686069882762461, -0.0036395047900653513], [0.018784534009008536, 0.06283355092854435, -0.0680883529862, -0.059521888323342674, -0.012301483362129825], [-0.04940793389593632, 0.02949434135035856, 0.03653720581894046, -0.06821081612756998, -0.023574893033955806], [-0.008892079466367957, 0.048073928623805925, 0.05298058996293882, -0.003489100723186532, -0.04516653414064178], [0.03087771839078173, -0.01620003117699249, -0.00597551852284274, -0.03231273675354109, -0.0025040878986458993], [-0.03433416512937777, 0.006978313922187354, 0.003738188336586916, -0.01762960838085156, 0.0446034167894696]], dtype=torch.float64).requires_grad_(), 'WO': torch.tensor([[0.006474894116383426, 0.05212647313476643, -0.009006149021336219, -0.018718367006858416, -0.031830628897347016, 0.00023034531634785112, -0.04720035820618265], [0.011708396052368297, 0.024683619055134106, 0.014163508772248243, 0.04085878632934645, 0.004318908619194232, 0.0547433620137996, -0.0230070898338565], [-0.004283482949878672, -0.0317997913842036, 0.007401112091726911, -0.03706552707915483, -0.005918241641738476, -0.008276009442625933, 0.01691096939079474], [0.006664332151139056, 0.05772664505159039, -0.013335800762473456, 0.06706609526695513, -0.0318848293685619, 0.0014507162042607115, -0.03041175872591972], [0.10895050010188782, -0.04511424069848014, -0.03895657719705835, 0.030950409670033603, 0.07526055217553032, 0.041789770347656935, 0.032257026992418454]], dtype=torch.float64).requires_grad_(), 'W1': torch.from_numpy(unif((7, 9), -0.071, 0.09)).requires_grad_(), 'W2': torch.from_numpy(unif((9, 7), -0.057, 0.084)).requires_grad_()}, X=torch.from_numpy(unif((6, 7), -0.793, 0.708)), cfg=QinConfig(n_seq=3, rho1=0, rho2=0, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.pack': lambda: dict(params={'WQ': torch.tensor([[0.10822386577002663, 0.2576480948784952, 0.20735239164327102], [-0.529977188418297, 0.8146004860766983, -0.2840755022397087], [0.18842449463315555, 0.4057446942493184, -0.1451636284949151], [0.22971427966328842, -0.6283495555186087, -0.049704981604165165], [-0.2232743203483745, -0.6456302501673428, -0.2899043113877776], [-0.43614394862761635, 0.39969542733751107, -0.3512695891882147]], dtype=torch.float64), 'WK': torch.tensor([[-0.6618967351723402, -0.09312228265798876, -0.15225103095656317], [1.0966628034862789, 0.7614422176150838, 0.07065690609906719], [-0.340296574392583, 0.978645892015997, 0.11898786259940007], [-0.7397860320476065, 0.1678150701893538, -0.7445547699838919], [0.5319543671136489, 0.17132521360750697, -0.5071702867724291], [-0.2757609841895812, -0.9649891101180682, 0.7380345296293958]], dtype=torch.float64), 'WV': torch.tensor([[0.025113779198855272, 0.27783154516517505, 0.5572776837368542, -0.1928551323221341, -0.265316882712215, -0.22647001282197435], [0.11751268314221765, -0.3854960021239704, -0.17241627916384855, 0.10616918906078482, 0.04597017679834124, -0.2679014946145524], [-0.4985388606885418, -0.267157306624116, 0.2681219944283036, 0.5733385051930784, 0.4926439928258916, -0.1370066192343914], [0.27365583265835036, 0.16031950843831808, 0.6527242536472492, -0.35575778722800705, 0.5191495390595928, 0.16779188117218685], [-0.06811085869321726, 1.095236426202871, 0.8135316467195498, -0.6884335528704848, 0.057144108264202104, 0.3294689870312389], [0.49698243470247816, -0.5349251304959513, 0.19766032010186846, 0.10190374551293652, -0.3431940320194319, 0.35402396704435873]], dtype=torch.float64), 'WO': torch.tensor([[-0.23342284167545194, -0.018925683221893193, -0.4344588783328786, 0.20492450504597787, 0.2209353084057397, -0.1419544351888468], [-0.3813203460922687, 0.0007864449657390286, 0.11271591041562992, 0.07670433772848538, -0.11263883346741448, 0.4499778767823229], [-0.15415460243744242, 0.02815662643617534, 0.6956549090773766, -0.378490699533907, 0.01498792111959872, 0.12798385799644416], [-0.33896431360502594, -0.6174996181386344, -0.4359265758142721, -0.9561484722781416, -0.0027825228268060654, -0.037093600850446974], [0.31062637880815736, 0.8394215569882425, 0.07507230973445342, 0.08734901300710803, 0.21721805044496115, -0.22291675316607568], [-0.6833160834058404, -0.34383645337444485, 0.0658306086139057, -0.013573285762934654, 0.011517950151832948, -0.2794767953285474]], dtype=torch.float64), 'W1': torch.from_numpy(unif((6, 8), -1.277, 0.835)), 'W2': torch.from_numpy(unif((8, 6), -0.87, 0.775))}),
    'attention_theory.qin.model.stack_forward': lambda: dict(layers=[{'WQ': torch.tensor([[0.73551435566293, 0.5368888637353969, 0.14589994169679213], [-0.4932940159648297, -0.0018183922317724507, 0.2680047699772896], [-0.5259713650752759, 0.1613079055938645, 0.17549111854365515], [0.2841582521476516, -0.48341413563616786, -0.2701389438304772], [-0.17817394354439364, -0.4775696290296374, 0.7100939623261359], [-0.20245470710919755, 0.13430128884165798, -0.10556179965061897]], dtype=torch.float64), 'WK': torch.tensor([[0.6464500957668582, 0.5390351157713397, 0.2585651255290755], [-0.899579141794226, 0.021240739796187003, 0.2791137185982707], [0.40986559702897174, -0.25225949466745584, 0.7438330242845205], [-0.5390636861834674, -0.2700676840000043, 0.381732559145805], [0.020026462233548467, 0.8174733491106934, 0.07696263806284197], [-0.2585004048527977, -0.1541396555528378, -0.4454585371643178]], dtype=torch.float64), 'WV': torch.tensor([[-0.5216107436869168, 0.25736441339490607, 0.23725994939357006, 0.5285014249417528, -0.30806652425599756, 0.6895752298699004], [-0.1173255404132162, 0.6427494883304556, -0.17668408224924984, -0.3002597967634674, 0.10197445092170658, 0.4210889585916399], [0.06573188444234968, -0.23904114146566813, -0.5475506554082313, -0.572168231790586, 0.20521941410691663, 0.4040486538887343], [-0.06707298657173173, -0.43860761670620907, 0.35641796631070277, -0.5227186390500065, -0.2911088307922713, 0.25352947705528295], [-0.9186162874141777, 0.15773472769365512, -0.2374538771281511, 0.04461324967772565, -0.030905018665156343, 0.0825128562548345], [0.283394506448625, -0.3096031543437812, 0.5801134813887228, 0.29642654805435403, 0.34445241699383305, 0.47555372891150693]], dtype=torch.float64), 'WO': torch.tensor([[0.32153154510089516, 0.3445936783632033, 0.030860962355773566, -0.5824779855451008, -0.05513193122563231, -0.31415303633905484], [-0.5808318947679508, 0.10551291005584142, -0.23210934269993758, -0.4204159013302793, -0.4258034078911794, 0.10958081392246688], [0.1464272100861347, 0.5398910012434756, -0.0056806396373325916, 0.4253293006359174, 0.5724722183074874, 0.46955315470839337], [-0.9656312761650722, 0.5016080278855778, 0.13864928777483143, 0.17300393034993752, 0.15155295866414203, 0.156259956343341], [0.13040030936788233, -0.14652574463562085, -0.7763393596477379, -0.04446425147454233, -0.32812215314992677, 0.4409748665902041], [-0.11788843241583573, 0.03407867142654897, -0.34685017894575765, -0.20846074959184904, -0.004708352717363328, -0.6064018796730379]], dtype=torch.float64), 'W1': torch.from_numpy(unif((6, 8), -0.979, 0.742)), 'W2': torch.from_numpy(unif((8, 6), -1.098, 1.084))}], X=torch.tensor([[0.1346347353758899, -0.1414608449457911, 0.6857789107609233, 0.11232939376849213, -0.5736067564133525, 0.387204079557027], [0.5783235797245564, 0.420030087369531, -0.31210633946687333, -0.5612139951441738, -0.27642201368906216, 0.018328057886942667], [-0.8252051184957983, -0.07765402631687542, -0.4422014977513087, -0.25989796599682974, -0.19316961450152645, -0.11226195836370934], [0.21382147538168406, 0.541533552692404, -0.06676732856233249, 0.7098094274097955, -0.34553536225424536, 0.1825919001560541]], dtype=torch.float64), cfg=QinConfig(n_seq=1, rho1=1, rho2=1, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.stack_loss': lambda: dict(layers=[{'WQ': torch.tensor([[0.73551435566293, 0.5368888637353969, 0.14589994169679213], [-0.4932940159648297, -0.0018183922317724507, 0.2680047699772896], [-0.5259713650752759, 0.1613079055938645, 0.17549111854365515], [0.2841582521476516, -0.48341413563616786, -0.2701389438304772], [-0.17817394354439364, -0.4775696290296374, 0.7100939623261359], [-0.20245470710919755, 0.13430128884165798, -0.10556179965061897]], dtype=torch.float64), 'WK': torch.tensor([[0.6464500957668582, 0.5390351157713397, 0.2585651255290755], [-0.899579141794226, 0.021240739796187003, 0.2791137185982707], [0.40986559702897174, -0.25225949466745584, 0.7438330242845205], [-0.5390636861834674, -0.2700676840000043, 0.381732559145805], [0.020026462233548467, 0.8174733491106934, 0.07696263806284197], [-0.2585004048527977, -0.1541396555528378, -0.4454585371643178]], dtype=torch.float64), 'WV': torch.tensor([[-0.5216107436869168, 0.25736441339490607, 0.23725994939357006, 0.5285014249417528, -0.30806652425599756, 0.6895752298699004], [-0.1173255404132162, 0.6427494883304556, -0.17668408224924984, -0.3002597967634674, 0.10197445092170658, 0.4210889585916399], [0.06573188444234968, -0.23904114146566813, -0.5475506554082313, -0.572168231790586, 0.20521941410691663, 0.4040486538887343], [-0.06707298657173173, -0.43860761670620907, 0.35641796631070277, -0.5227186390500065, -0.2911088307922713, 0.25352947705528295], [-0.9186162874141777, 0.15773472769365512, -0.2374538771281511, 0.04461324967772565, -0.030905018665156343, 0.0825128562548345], [0.283394506448625, -0.3096031543437812, 0.5801134813887228, 0.29642654805435403, 0.34445241699383305, 0.47555372891150693]], dtype=torch.float64), 'WO': torch.tensor([[0.32153154510089516, 0.3445936783632033, 0.030860962355773566, -0.5824779855451008, -0.05513193122563231, -0.31415303633905484], [-0.5808318947679508, 0.10551291005584142, -0.23210934269993758, -0.4204159013302793, -0.4258034078911794, 0.10958081392246688], [0.1464272100861347, 0.5398910012434756, -0.0056806396373325916, 0.4253293006359174, 0.5724722183074874, 0.46955315470839337], [-0.9656312761650722, 0.5016080278855778, 0.13864928777483143, 0.17300393034993752, 0.15155295866414203, 0.156259956343341], [0.13040030936788233, -0.14652574463562085, -0.7763393596477379, -0.04446425147454233, -0.32812215314992677, 0.4409748665902041], [-0.11788843241583573, 0.03407867142654897, -0.34685017894575765, -0.20846074959184904, -0.004708352717363328, -0.6064018796730379]], dtype=torch.float64), 'W1': torch.from_numpy(unif((6, 8), -0.979, 0.742)), 'W2': torch.from_numpy(unif((8, 6), -1.098, 1.084))}, {'WQ': torch.tensor([[0.73551435566293, 0.5368888637353969, 0.14589994169679213], [-0.4932940159648297, -0.0018183922317724507, 0.2680047699772896], [-0.5259713650752759, 0.1613079055938645, 0.17549111854365515], [0.2841582521476516, -0.48341413563616786, -0.2701389438304772], [-0.17817394354439364, -0.4775696290296374, 0.7100939623261359], [-0.20245470710919755, 0.13430128884165798, -0.10556179965061897]], dtype=torch.float64), 'WK': torch.tensor([[0.6464500957668582, 0.5390351157713397, 0.2585651255290755], [-0.899579141794226, 0.021240739796187003, 0.2791137185982707], [0.40986559702897174, -0.25225949466745584, 0.7438330242845205], [-0.5390636861834674, -0.2700676840000043, 0.381732559145805], [0.020026462233548467, 0.8174733491106934, 0.07696263806284197], [-0.2585004048527977, -0.1541396555528378, -0.4454585371643178]], dtype=torch.float64), 'WV': torch.tensor([[-0.5216107436869168, 0.25736441339490607, 0.23725994939357006, 0.5285014249417528, -0.30806652425599756, 0.6895752298699004], [-0.1173255404132162, 0.6427494883304556, -0.17668408224924984, -0.3002597967634674, 0.10197445092170658, 0.4210889585916399], [0.06573188444234968, -0.23904114146566813, -0.5475506554082313, -0.572168231790586, 0.20521941410691663, 0.4040486538887343], [-0.06707298657173173, -0.43860761670620907, 0.35641796631070277, -0.5227186390500065, -0.2911088307922713, 0.25352947705528295], [-0.9186162874141777, 0.15773472769365512, -0.2374538771281511, 0.04461324967772565, -0.030905018665156343, 0.0825128562548345], [0.283394506448625, -0.3096031543437812, 0.5801134813887228, 0.29642654805435403, 0.34445241699383305, 0.47555372891150693]], dtype=torch.float64), 'WO': torch.tensor([[0.32153154510089516, 0.3445936783632033, 0.030860962355773566, -0.5824779855451008, -0.05513193122563231, -0.31415303633905484], [-0.5808318947679508, 0.10551291005584142, -0.23210934269993758, -0.4204159013302793, -0.4258034078911794, 0.10958081392246688], [0.1464272100861347, 0.5398910012434756, -0.0056806396373325916, 0.4253293006359174, 0.5724722183074874, 0.46955315470839337], [-0.9656312761650722, 0.5016080278855778, 0.13864928777483143, 0.17300393034993752, 0.15155295866414203, 0.156259956343341], [0.13040030936788233, -0.14652574463562085, -0.7763393596477379, -0.04446425147454233, -0.32812215314992677, 0.4409748665902041], [-0.11788843241583573, 0.03407867142654897, -0.34685017894575765, -0.20846074959184904, -0.004708352717363328, -0.6064018796730379]], dtype=torch.float64), 'W1': torch.from_numpy(unif((6, 8), -0.979, 0.742)), 'W2': torch.from_numpy(unif((8, 6), -1.098, 1.084))}], X=torch.tensor([[0.1346347353758899, -0.1414608449457911, 0.6857789107609233, 0.11232939376849213, -0.5736067564133525, 0.387204079557027], [0.5783235797245564, 0.420030087369531, -0.31210633946687333, -0.5612139951441738, -0.27642201368906216, 0.018328057886942667], [-0.8252051184957983, -0.07765402631687542, -0.4422014977513087, -0.25989796599682974, -0.19316961450152645, -0.11226195836370934], [0.21382147538168406, 0.541533552692404, -0.06676732856233249, 0.7098094274097955, -0.34553536225424536, 0.1825919001560541]], dtype=torch.float64), Y=torch.tensor([[0.9034701816518086, 0.09401229776087457, -0.7434992493538084, -0.9217253762584194, -0.45772582566733916, 0.2201951234700494], [-1.009618183538736, -0.20917557487171307, -0.15922500991447772, 0.5408455846858077, 0.2146591225063409, 0.3553727090399214], [-0.6538286094183394, -0.12961363369276946, 0.7839754700613295, 1.4934311452207607, -1.2590655321041202, 1.5139237747390626], [1.3458754237823045, 0.7813114007004275, 0.2644556303293035, -0.3139228145364278, 1.4580206835369587, 1.9602583164499647]], dtype=torch.float64), cfg=QinConfig(n_seq=1, rho1=1, rho2=1, gamma=0.5, b=4.0)),
    'attention_theory.qin.model.unpack': lambda: dict(theta=torch.from_numpy(unif((204,), -1.625, 1.136)), dims=Dims(d=6, dk=3, dv=6, m=8)),
    'attention_theory.results.commit_label': lambda: dict(prov={}),
    'attention_theory.results.describe_provenance': lambda: dict(prov={'command': '/work/main/.venv/lib/python3.11/site-packages/pytest/__main__.py tests -q -p no:cacheprovider -p fztracer --durations=30', 'commit': 'ced6c0c12e00', 'config': {'T': [20, 40], 'seed': 0}, 'date': '2026-11-24T13:32:03+00:00', 'device': 'cpu (x86_64, 2 cores, Linux)', 'package_version': '0.1.0', 'python_version': '3.11.7', 'scale': 'smoke', 'torch_version': '2.13.0+cpu', 'uncommitted_source_changes': True, 'wall_time_s': 1.5}),
    'attention_theory.results.device_name': lambda: dict(device='cpu'),
    'attention_theory.results.provenance': lambda: dict(config={'n': 3, 'scale_seen': 'full'}, wall_time_s=4.156799695920199e-05, device='cpu', scale='full', extra={'experiment': 'qin toy', 'part': 'a', 'torch_threads': 1, 'commit_at_start': 'ced6c0c12e00', 'uncommitted_source_changes_at_start': True}),
    'attention_theory.results.repo_results_dir': lambda: dict(name='deora-head-sweeps'),
    'attention_theory.trauger.linear_covering.l34_packing_family': lambda: dict(k=2, d=1, s=1),
    'attention_theory.trauger.linear_covering.random_l1_ball': lambda: dict(rng=np.random.default_rng(0), n=1, radius=0.30836593449689526, size=20),
    'attention_theory.trauger.linear_covering.strictly_below': lambda: dict(eps=0.4340235759043006),
    'attention_theory.trauger.model.activation': lambda: dict(sigma='relu'),
    'attention_theory.trauger.model.attention_head_factored': lambda: dict(W_Q=torch.tensor([[0.6197855663086329], [-1.7603287921227768]], dtype=torch.float64), W_K=torch.tensor([[-1.0308641360355328], [0.03952289053338441]], dtype=torch.float64), W_v=torch.tensor([[-1.3610593983050674], [0.027994264249169242]], dtype=torch.float64), W_c=torch.tensor([[-0.05486311801846381, 0.8987397888581683]], dtype=torch.float64), X=torch.tensor([[-0.46990009907954344, -0.8696871441704723], [0.07703242182250279, 0.44504127849104197], [-0.2290793416186396, -0.8625197870795628]], dtype=torch.float64), sigma='identity'),
    'attention_theory.trauger.model.parameter_count': lambda: dict(d=8, k=4, T=1000, printed_qk_shape=False),
    'attention_theory.trauger.model.proj_norm': lambda: dict(Z=torch.tensor([[-0.00775263745226193, 0.20659050381350255], [-0.0069128877318884565, 0.18421304596416285], [0.0006306040569891169, -0.016804192204578124], [-0.005844673217808074, 0.15574751071842852], [-0.008039540450010275, 0.21423582906125316], [0.0027222788939069756, -0.07254266327764626], [0.0027222788939069756, -0.07254266327764626], [-0.004610943027899098, 0.12287135172445157]], dtype=torch.float64)),
    'attention_theory.trauger.model.random_block': lambda: dict(rng=np.random.default_rng(0), L=2, d=2, k=1, bounds={'B_qk': 1.0}),
    'attention_theory.trauger.model.random_layer': lambda: dict(rng=np.random.default_rng(0), d=2, k=1, B_qk=1.0),
    'attention_theory.trauger.multi_layer.l11_ball': lambda: dict(rng=np.random.default_rng(0), shape=(2, 2), B=1.0),
    'attention_theory.trauger.multi_layer.layer1_counterexample': lambda: dict(Bx=4.0, eta=1.5625e-05),
    'attention_theory.trauger.multi_layer.lemma_e2_rhs': lambda: dict(t={'lhs': torch.tensor(0.10108421722775757, dtype=torch.float64), 'e_c': torch.tensor(0.15848943237246912, dtype=torch.float64), 'e_qk': torch.tensor(0.0, dtype=torch.float64), 'e_v': torch.tensor(0.0, dtype=torch.float64), 'delta': torch.tensor(0.0, dtype=torch.float64), 'B_c': torch.tensor(2.3069622161873826, dtype=torch.float64), 'B_v': torch.tensor(3.85659459937146, dtype=torch.float64), 'B_qk': torch.tensor(3.7474384560412197, dtype=torch.float64), 'rho': torch.tensor(0.770911569870255, dtype=torch.float64)}, L_sigma=1.0, rho=1.0, c_delta=0.0, c_delta_qk=4.0, c_qk=2.0),
    'attention_theory.trauger.multi_layer.samples': lambda: dict(rng=np.random.default_rng(0), m=3, T=4, d=3, Bx=0.9545047955948689),
    'attention_theory.trauger.multi_layer.unrolled_rhs': lambda: dict(t={'lhs': torch.tensor(5.83552261171523e-06, dtype=torch.float64), 'e_w': torch.tensor(0.0, dtype=torch.float64), 'e_c': torch.tensor([0.0], dtype=torch.float64), 'e_v': torch.tensor([0.0002126246107287109], dtype=torch.float64), 'e_qk': torch.tensor([0.0], dtype=torch.float64), 'B_c': torch.tensor(0.3070225555437197, dtype=torch.float64), 'B_v': torch.tensor(1.4607868704115208, dtype=torch.float64), 'B_qk': torch.tensor(0.5433166538695833, dtype=torch.float64), 'B_w': torch.tensor(0.4122488428733825, dtype=torch.float64), 'Bx': torch.tensor(0.5626527907224188, dtype=torch.float64)}, L_sigma=1.0, c_qk=0.0, alpha_qk=4.0),
    'attention_theory.trauger.multi_layer_bounds.alphas': lambda: dict(L=1, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=0.0, H=1),
    'attention_theory.trauger.multi_layer_bounds.cor421_order_printed': lambda: dict(B=1.0, Bx=1.0, B_w=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=1e-06, exponent_per_layer=1e-12, constant=1.0),
    'attention_theory.trauger.multi_layer_bounds.cor421_proof_constant': lambda: dict(d=16, k=8, B=1.0, Bx=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=1e-06, B_w=1.0),
    'attention_theory.trauger.multi_layer_bounds.corf01_class_constants': lambda: dict(d=64, k=16, B=1.0),
    'attention_theory.trauger.multi_layer_bounds.corf01_constants': lambda: dict(d=64, k=16, B=1.0, Bx=1.0),
    'attention_theory.trauger.multi_layer_bounds.corf01_printed_constant': lambda: dict(d=64, k=16, B=1.0, Bx=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=0.5, B_w=1.0),
    'attention_theory.trauger.multi_layer_bounds.corf01_proof_constant': lambda: dict(d=64, k=16, B=1.0, Bx=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=0.5, B_w=1.0),
    'attention_theory.trauger.multi_layer_bounds.corf02_printed_constant': lambda: dict(d=65536, k=4, B=1.0, hidden_constant=1e+09),
    'attention_theory.trauger.multi_layer_bounds.dudley_rademacher': lambda: dict(A=100.0, m=1, R=1.0),
    'attention_theory.trauger.multi_layer_bounds.lemma36_class_constants': lambda: dict(d=2, k=2, B=1.0),
    'attention_theory.trauger.multi_layer_bounds.lemma_e1_allocation': lambda: dict(C=[2.1972245773362196, 2.1972245773362196, 2.1972245773362196, 2.1972245773362196, 2.1972245773362196, 2.1972245773362196, 2.1972245773362196], beta=[1.0, 5.0, 5.0, 10.0, 1.0, 1.0, 2.0], eps=17.309868794439435),
    'attention_theory.trauger.multi_layer_bounds.lemma_e1_gamma': lambda: dict(C=np.array([3.5348748870342206, 0.1255655153231397, 0.10081496123534756, 52.74316960591176, 4.696341170253945]), beta=np.array([0.08581606668925054, 0.1403058788335977, 0.027636361663335583, 47.90359233885307, 6.517938098252684])),
    'attention_theory.trauger.multi_layer_bounds.lemma_e1_minimum': lambda: dict(C=np.array([0.7082964495283922, 2.1948718640983635, 32.15428606153796]), beta=np.array([1.5815582643114536, 0.017259955313761594, 0.015775198519601293]), eps=5.320822060742284),
    'attention_theory.trauger.multi_layer_bounds.thm42_printed_constant': lambda: dict(C1=1, CBx=4, L=3, L_sigma=1, B_c2=2, B_v2=0.5, B_qk2=0.5, B_w=2),
    'attention_theory.trauger.multi_layer_bounds.thm42_printed_terms': lambda: dict(C1=1, CBx=4, L=3, L_sigma=1, B_c2=2, B_v2=0.5, B_qk2=0.5, B_w=2),
    'attention_theory.trauger.multi_layer_bounds.thm42_proof_constant': lambda: dict(C1=0.3482565342031941, CBx=0.6071462113737129, L=3, L_sigma=1.0, B_c2=0.8005454758347135, B_v2=1.5240689772961045, B_qk2=0.1895406161317496, B_w=1.084992042672874, kwargs={'value_layer1': 'C1'}),
    'attention_theory.trauger.multi_layer_bounds.thm42_proof_pairs': lambda: dict(C1=1.0, CBx=4.0, L=3, L_sigma=1.0, B_c2=2.0, B_v2=0.5, B_qk2=0.5, B_w=2.0, value_layer1='C1'),
    'attention_theory.trauger.single_layer.all_signs': lambda: dict(m=2),
    'attention_theory.trauger.single_layer.expected_abs_rademacher_sum': lambda: dict(m=65),
    'attention_theory.trauger.single_layer.mc_curve': lambda: dict(Ts=(2, 16, 64), m=64, n_draws=4, restarts=2, steps=40),  # 271.9 ms
    'attention_theory.trauger.single_layer.sec26_head_row': lambda: dict(X_full=unif((15, 4), -3.813, 2.97), W_qk=np.array([[2.1135846374725586, -0.6610406323410464, 1.2716006580967942, -1.1871412482307058], [-1.445431336693273, 0.8686024617129845, 0.6637328784091808, -0.11057723417027482], [-0.9577175125156232, -1.3415630703134327, 0.20678856864625414, -0.5492375906010963], [0.9705618664848076, 1.0434688818416782, -1.1957627110113795, -0.30692496989870593]]), W_v=np.array([[-0.7583310716446477], [-0.06580168267687886], [-0.4790663332178438], [-1.1945782627620019]]), W_c=np.array([[-1.2113444897889079, -0.9415592448328354, -0.36288273691884537, -2.295512414773735]]), row=0, sigma=np.tanh),
    'attention_theory.trauger.single_layer.slope_ci': lambda: dict(T=[4, 32], per_draw=[[93.26318988379127], [95.24687742144367]], n_boot=2000, seed=0),
    'attention_theory.trauger.single_layer.unit': lambda: dict(d=2),
    'attention_theory.trauger.single_layer_bounds.C_lemma33': lambda: dict(Bx=0.5, B_qk=1, d=100),
    'attention_theory.trauger.single_layer_bounds.C_lemma34': lambda: dict(Bx=0.5, B_qk=1, d=100),
    'attention_theory.trauger.single_layer_bounds.C_lemma36': lambda: dict(Bx=1.0, B_qk=1.0, d=1),
    'attention_theory.trauger.single_layer_bounds.cor411_bound': lambda: dict(B=1.0, Bx=1.0, B_qk=1.0, m=3, d=1),
    'attention_theory.trauger.single_layer_bounds.cord01_bound': lambda: dict(B=1.0, Bx=1.0, B_qk=1.0, m=3, d=1),
    'attention_theory.trauger.single_layer_bounds.cord01_printed_expression': lambda: dict(B=1.0, Bx=0.5, B_qk=1, m=10000000, d=100),
    'attention_theory.trauger.single_layer_bounds.delta_star': lambda: dict(Bx=0.5, C=0.001, m=100, d=2),
    'attention_theory.trauger.single_layer_bounds.dudley_a_b': lambda: dict(Bx=0.5, C=0.001, m=3, d=8),
    'attention_theory.trauger.single_layer_bounds.dudley_h': lambda: dict(delta=0.5, Bx=0.5, C=1.0, m=10, d=64),
    'attention_theory.trauger.single_layer_bounds.dudley_inf': lambda: dict(Bx=0.5, C=1.0, m=10, d=64),
    'attention_theory.trauger.single_layer_bounds.dudley_inf_numeric': lambda: dict(Bx=0.5, C=0.001, m=100, d=2),
    'attention_theory.trauger.single_layer_bounds.dudley_inf_printed': lambda: dict(Bx=0.5, C=0.001, m=10, d=8),
    'attention_theory.trauger.single_layer_bounds.edelman_type_bound': lambda: dict(B=1, Bx=1, B_qk=1, m=1000, d=4, T=1000000),
    'attention_theory.trauger.single_layer_bounds.multihead_bound': lambda: dict(H=3, single_head_bound=2.0),
    'attention_theory.trauger.single_layer_bounds.thm41_bound': lambda: dict(B=1.0, Bx=1.0, C=9.011035410141815, m=64, d=4, c_D=12.0),
    'attention_theory.trauger.single_layer_bounds.thm41_printed_expression': lambda: dict(B=1.0, Bx=0.5, C=0.022527588525354542, m=100, d=64),
    'attention_theory.trauger.single_layer_bounds.thm51_maurer_bound': lambda: dict(K=3, scalar_bound=1.0),
    'attention_theory.trauger.single_layer_bounds.trivial_bound': lambda: dict(B=1.0, Bx=1.0),
    'attention_theory.trauger.single_layer_model.activation': lambda: dict(sigma='tanh'),
    'attention_theory.trauger.single_layer_model.as_t': lambda: dict(x=torch.tensor([0.0, 0.0, 0.0, 0.0], dtype=torch.float64), name='x', ndim=1),
    'attention_theory.trauger.single_layer_model.attention_weights': lambda: dict(X=torch.tensor([[-0.6247735350993604, 0.9080076827737513, 0.5458733510685562], [0.6410400292945015, 0.9036289406778856, -2.1773200362886422], [0.34777066371313936, -1.5982220889858958, -0.4201664998820397], [-0.040989828005249, -1.090400485710583, 0.11723562797705107], [-1.3500633107529583, -0.4633034678977371, 0.8651635968557672], [-0.9928699615731963, 0.16588410429595435, -1.5434307432103822], [0.28310352953674894, -1.7543475845055865, -1.0124184980710504]], dtype=torch.float64), W_qk=torch.tensor([[0.22718544406262772, -1.0233641855294402, -0.5649451643188103], [0.23687042170136294, 0.897580080900171, 0.5619878019255748], [-0.2399712494390975, 1.4490165215856017, 0.8638842290315615]], dtype=torch.float64), x_cls=torch.tensor([-1.3500633107529583, -0.4633034678977371, 0.8651635968557672], dtype=torch.float64), transpose=False),
    'attention_theory.trauger.single_layer_model.cls_output': lambda: dict(X=np.array([[-0.6247735350993604, 0.9080076827737513, 0.5458733510685562], [0.6410400292945015, 0.9036289406778856, -2.1773200362886422], [0.34777066371313936, -1.5982220889858958, -0.4201664998820397], [-0.040989828005249, -1.090400485710583, 0.11723562797705107], [-1.3500633107529583, -0.4633034678977371, 0.8651635968557672], [-0.9928699615731963, 0.16588410429595435, -1.5434307432103822], [0.28310352953674894, -1.7543475845055865, -1.0124184980710504]]), W_c=np.array([[-0.13705138924332552, 1.2976825177768552, 0.7221212847068629]]), W_v=np.array([[-0.16542452897234552], [1.8804478084841285], [-0.9590352290746812]]), W_qk=np.array([[0.22718544406262772, -1.0233641855294402, -0.5649451643188103], [0.23687042170136294, 0.897580080900171, 0.5619878019255748], [-0.2399712494390975, 1.4490165215856017, 0.8638842290315615]]), x_cls=np.array([-1.3500633107529583, -0.4633034678977371, 0.8651635968557672]), sigma='tanh', transpose=False),
    'attention_theory.trauger.single_layer_model.constraint_norms': lambda: dict(w=np.array([0.006684488278038284, 0.6458699880021969, -0.34744552371976484]), W_c=np.array([[1.3622960280496916, -1.4040420994808942, -1.2288716093718703], [0.6377039719503083, -0.5959579005191057, 0.7711283906281297]]), W_v=np.array([[-0.37760822955863654, 0.21778326049153657], [0.010338742966599578, -0.12819104378114218], [0.11205302747476385, -0.15402569572732133]]), W_qk=np.array([[-0.03786969609203205, -0.5107059891644923, -0.08355880039107305], [-0.34882065383110467, -0.25024761772851356, 0.26946560017563614], [-0.22436868717137223, -0.011663609810989566, 1.2632993456347863]])),
    'attention_theory.trauger.single_layer_model.into_l1_ball': lambda: dict(Z=torch.tensor([0.29303768291745863], dtype=torch.float64).requires_grad_(), radius=1.0),
    'attention_theory.trauger.single_layer_model.into_l1_columns': lambda: dict(Z=torch.tensor([[-2.2165113264830545]], dtype=torch.float64).requires_grad_(), radius=1.0),
    'attention_theory.trauger.single_layer_model.outer_sup_identity': lambda: dict(eps=torch.tensor([1.0], dtype=torch.float64), X=torch.tensor([[[-0.6664369401110775]]], dtype=torch.float64), W_qk=torch.tensor([[0.09745096576639617]], dtype=torch.float64), x_cls=torch.tensor([-1.8996468287885815], dtype=torch.float64), B=2.0999999999999996),
    'attention_theory.trauger.single_layer_model.pooled_tokens': lambda: dict(X=torch.tensor([[-0.6247735350993604, 0.9080076827737513, 0.5458733510685562], [0.6410400292945015, 0.9036289406778856, -2.1773200362886422], [0.34777066371313936, -1.5982220889858958, -0.4201664998820397], [-0.040989828005249, -1.090400485710583, 0.11723562797705107], [-1.3500633107529583, -0.4633034678977371, 0.8651635968557672], [-0.9928699615731963, 0.16588410429595435, -1.5434307432103822], [0.28310352953674894, -1.7543475845055865, -1.0124184980710504]], dtype=torch.float64), W_qk=torch.tensor([[0.22718544406262772, -1.0233641855294402, -0.5649451643188103], [0.23687042170136294, 0.897580080900171, 0.5619878019255748], [-0.2399712494390975, 1.4490165215856017, 0.8638842290315615]], dtype=torch.float64), x_cls=torch.tensor([-1.3500633107529583, -0.4633034678977371, 0.8651635968557672], dtype=torch.float64), transpose=False),
    'attention_theory.trauger.single_layer_model.project_l1_ball': lambda: dict(v=np.array([0.2, -0.3]), radius=1.0),
    'attention_theory.trauger.single_layer_model.rademacher_mc_identity': lambda: dict(X=unif((64, 2, 4), -0.991, 0.99), x_cls=np.array([0.999, 0.0, 0.0, 0.0]), B=1.0, B_qk=1.0, n_draws=4, restarts=2, steps=40, seed=54),
    'attention_theory.trauger.single_layer_model.random_feasible_params': lambda: dict(rng=np.random.default_rng(0), d=2, k=4, B_w=2.7835845499419305, B_Wc=0.12275418698632866, B_Wv=0.3173198918143007, B_qk=0.872590198398578),
    'attention_theory.trauger.single_layer_model.sample_tokens': lambda: dict(rng=np.random.default_rng(0), m=1, T=2, d=2, Bx=1.2394164619821184, kind='sphere'),
    'attention_theory.trauger.single_layer_model.single_layer_scalar': lambda: dict(X=unif((18, 5), -0.392, 0.403), w=np.array([0.12808556744142188, 0.05485528803156625, -0.036446896793122976, 0.033428384402931395, 0.017408543593390814]), W_c=np.array([[0.15007828496968542, -0.2954512060476175, -0.6007093340898837, -1.3245177834935984, 1.1102590094335227], [0.03845854436972907, 0.04841459637572815, 1.0744379893216396, 0.012756896050166543, 0.17589628628086998], [-0.28364746071141433, -1.3584662296904206, 0.031553186609824306, -0.1442175198477163, -0.374287532477731], [-0.7781744167302623, -0.34046566360192587, -0.2390745914478501, -0.1789070047463918, 0.40904683281180354], [-0.9229607717134504, 0.13052178277884952, -0.22754437702534372, 0.5129202743566682, -0.10382981749061442]]), W_v=np.array([[-3.301527078129501, -0.9552696978859795, 0.09736095750423329, -0.9740461189518976, -0.3151047500122871], [0.06908953880441349, -0.20837367007245677, -0.499093364880847, -0.8853143744304659, 0.34434666738155334], [0.4094429032220925, -0.7461958463743514, 2.201689589627491, 0.06557185248260079, 0.8142612459861447], [0.32756994836577646, -0.8827433234713119, 0.138631031628637, -2.091649470238323, -2.1559231534677936], [0.3922640988882916, 1.707311029605975, 1.5631186237688663, 0.4833117513067867, 0.8702577505622954]]), W_qk=np.array([[-0.0014407430398268503, 0.01959319418693825, 0.024319797812341677, -0.03218672642145359, -0.006215787959454092], [-0.08079397470561453, 0.07732754501323856, 0.09186739837544637, 0.012378636280554687, -0.06882889853288578], [-0.11444058154002869, -0.006718568093068995, 0.02358652154661535, 0.001036992808625629, -0.05196595666144277], [-0.05206231285118643, -0.0007991760197361798, 0.08501521980235763, -0.04003321253700732, 0.06174023982247846], [-0.007837699530980406, -0.020891934112218426, -0.008120172430375092, -0.016888586864522707, -0.04260296903699433]]), x_cls=np.array([0.12691651500215825, 0.2235439471799504, 0.2975361294817924, -0.24178762667580736, -0.0354728580037039]), sigma='relu'),
    'attention_theory.trauger.single_layer_model.sup_full_class': lambda: dict(eps=signs((32, 5)).astype(float), X=unif((5, 4, 3), 0.004, 0.993), x_cls=np.array([1.0, 0.0, 0.0]), k=2, B_w=1.0, B_Wc=2.0, B_Wv=0.5, B_qk=1.0, sigma='relu', restarts=2, steps=120, seed=48, W_qk_fixed=np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])),
    'attention_theory.trauger.sparse_majority.authors_model.bias_mask': lambda: dict(shape=ModelShape(d=64, heads=2, key_dim=64, value_dim=64, dense_units=64, n_classes=2)),
    'attention_theory.trauger.sparse_majority.authors_model.embed_authors': lambda: dict(bits=torch.from_numpy(ints((40, 10), 0, 1)), embeddings=torch.from_numpy(unif((3, 64), -0.031, 0.035))),
    'attention_theory.trauger.sparse_majority.authors_model.make_authors_run': lambda: dict(T=10, seed=0, n_train=8, n_val=1),
    'attention_theory.trauger.sparse_majority.authors_model.random_orthogonal_embeddings': lambda: dict(d=64, generator=torch.Generator().manual_seed(0)),
    'attention_theory.trauger.sparse_majority.authors_model.run_generator': lambda: dict(T=10, seed=0, stream='embeddings'),
    'attention_theory.trauger.sparse_majority.authors_model.unflatten': lambda: dict(flat=torch.from_numpy(unif((37506,), -1.248, 1.444)), shape=ModelShape(d=64, heads=2, key_dim=64, value_dim=64, dense_units=64, n_classes=2)),
    'attention_theory.trauger.sparse_majority.benchmark.benchmark_trainers': lambda: dict(config=ProtocolConfig(name='authors', Ts=(10, 12), seeds=(0,), n_train=20, n_val=10, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.01, momentum=0.9, lr_decay=0.999, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=8, max_epochs=200000, early_stopping='train-accuracy-1', patience=None, selection='val-loss', eval_every=50, eval_dense_until=500, checkpoint_every=1000, dtype='float32', val_chunk=1000), epochs=1, reps=2, peak_n=64, peak_reps=1),  # 250.8 ms
    'attention_theory.trauger.sparse_majority.benchmark.product_flops': lambda: dict(op='bmm', shapes=[[2, 3, 4], [2, 4, 5]]),
    'attention_theory.trauger.sparse_majority.benchmark.record_products': lambda: dict(fn=lambda: torch.ones(2, 3) @ torch.ones(3, 4)),
    'attention_theory.trauger.sparse_majority.benchmark.replay_products': lambda: dict(products=record_products(lambda: torch.bmm(torch.ones(2, 3, 4), torch.ones(2, 4, 5))), seed=0),
    'attention_theory.trauger.sparse_majority.benchmark.sgemm_peak': lambda: dict(n=64, reps=1, threads=1),
    'attention_theory.trauger.sparse_majority.data.check_index_set_size': lambda: dict(T=20, k=9),
    'attention_theory.trauger.sparse_majority.data.embed': lambda: dict(tokens=torch.from_numpy(ints((20, 13), 0, 2)), d=16),
    'attention_theory.trauger.sparse_majority.data.majority_labels': lambda: dict(S=torch.tensor([[1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0]], dtype=torch.long), index_set=torch.tensor([1, 2, 3, 6, 8, 9, 13, 14, 19], dtype=torch.long)),
    'attention_theory.trauger.sparse_majority.data.make_sparse_majority': lambda: dict(T=14, seed=0, n_train=40, n_val=60, k=9),
    'attention_theory.trauger.sparse_majority.data.positional_encoding': lambda: dict(length=201, d=64),
    'attention_theory.trauger.sparse_majority.data.sample_index_set': lambda: dict(T=14, k=9, seed=110866),
    'attention_theory.trauger.sparse_majority.data.sample_sequences': lambda: dict(n=1, T=20, seed=158382),
    'attention_theory.trauger.sparse_majority.data.token_embeddings': lambda: dict(d=64),
    'attention_theory.trauger.sparse_majority.data.with_cls': lambda: dict(S=torch.tensor([[1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0]], dtype=torch.long)),
    'attention_theory.trauger.sparse_majority.evaluation.reevaluate': lambda: dict(config=SweepConfig(Ts=(10, 14), seeds=(0,), n_train=40, n_val=60, k=9, d=8, heads=2, batch_size=16, max_epochs=6, lr=0.01, betas=(0.9, 0.999), eps=1e-07, eval_every=2, patience=None, checkpoint_every=2, dtype='float64', val_chunk=30, shuffle_seed=12345), best_params={'Wq': torch.from_numpy(unif((2, 8, 8), -0.643, 0.612)), 'bq': torch.tensor([[0.012555058262416435, -0.01135364514558608, -0.011829276193288992, -0.05060659010990044, -0.07223718566210963, -0.0599530653598669, -0.057603134952450924, 0.022045047922665616], [0.01825429082966793, 0.08501019664976237, 0.020220731232718756, -0.016345136460675397, 0.06614673128028059, -0.060390875734594146, -0.05481276228685381, -0.06961767992586564]], dtype=torch.float64), 'Wk': torch.from_numpy(unif((2, 8, 8), -0.68, 0.669)), 'bk': torch.tensor([[3.9490741619516423e-13, -2.8300642376638747e-13, -2.7543309323420925e-13, 1.3440691674117208e-13, 9.289924302551774e-12, 4.893991328690553e-12, -6.013930735731064e-12, 2.4353722762836745e-12], [-1.885726163042838e-12, 3.5096583497676237e-13, 7.916937095605329e-14, 2.7744234584219113e-12, 5.875045171287208e-13, 1.1554973396398084e-12, 5.20957286518985e-15, -5.913465091873008e-14]], dtype=torch.float64), 'Wv': torch.from_numpy(unif((2, 8, 8), -0.653, 0.684)), 'bv': torch.tensor([[-0.10601964573549705, -0.08279458538519388, 0.009655676095403647, 0.030780354774493462, -0.017288261198109698, -0.003800983938387321, -0.0190365741583355, 0.028684684466463845], [0.03727051024414983, 0.029835618297152852, -0.02889502074398772, 0.045739737741992754, -0.04695337055357929, -0.04088398459365931, 0.043934791654851015, 0.018956213681543085]], dtype=torch.float64), 'Wo': torch.from_numpy(unif((2, 8, 8), -0.684, 0.647)), 'bo': torch.tensor([[0.02366470415764348, 0.018835536264335498, 0.021592266952645146, -0.018143392032454388, -0.021860084660169768, 0.010072516386618425, -0.01899736756798208, -0.020225784511929797], [-0.03274602093332361, 0.01470997391821905, 0.0356357741165631, -0.03254192962254926, 0.028576520017287173, -0.04173688647956747, 0.01421436421469861, 0.03206367175663422]], dtype=torch.float64), 'Wc': torch.tensor([[[-0.4854174983544132, 0.4962283316386286, -0.5479133438482535, 0.4194637760963333, 0.6678895084045698, -0.38209744543487134, 0.03968264485105231, 0.4205147781596804], [0.5685029424034983, 0.8354348231764708, 0.46566392544721225, -0.03187952318321857, -0.3847365924587296, -0.43110850922168154, -0.4557029293176079, -0.4417454541002992]], [[-0.3814675534307034, 0.7091868935515397, 0.6144593169682366, -0.3624909432437967, 0.013553815571049878, 0.4184148855586989, 0.7322395021029935, 0.6695042394388679], [0.5249698631650169, 0.5581249264533463, 0.24998091175941378, 0.6009288004121082, -0.5663299469720872, 0.3111430546625447, 0.6228003097475313, -0.571720210426919]]], dtype=torch.float64), 'bc': torch.tensor([[-0.021983796710274874, 0.021983796710274894], [0.0306880611637907, -0.030688061163790692]], dtype=torch.float64)}),
    'attention_theory.trauger.sparse_majority.experiment.summarize': lambda: dict(runs=[{'T': 12, 'seed': 0, 'index_set': [1, 2, 3, 5, 6, 7, 8, 10, 11], 'best_epoch': 1, 'train_loss': 0.6917294859886169, 'train_acc': 0.5366666666666666, 'val_loss': 0.6985412836074829, 'val_acc': 0.4, 'weight_l1': 1524.0618868478837, 'weight_l1_no_bias': 1524.0536821011283, 'stop_epoch': 3, 'stop_reason': 'max-epochs', 'optimizer_steps': 9, 'gen_gap': 0.006811797618865967, 'authors_printed_gap': -0.006811797618865967}]),
    'attention_theory.trauger.sparse_majority.experiment.sweep_config': lambda: dict(scale='smoke', overrides={'max_epochs': 4, 'eval_every': 2, 'checkpoint_every': 2, 'n_val': 50, 'Ts': (12,)}),
    'attention_theory.trauger.sparse_majority.model.accuracy': lambda: dict(z=torch.from_numpy(unif((2, 30, 2), 0.161, 1.571)), y=torch.from_numpy(ints((2, 30), 0, 1))),
    'attention_theory.trauger.sparse_majority.model.cross_entropy': lambda: dict(z=torch.tensor([[[0.1823670587200278, 1.0600035207090284], [0.20492311698001053, 1.068681269643527], [0.2857395667491055, 0.9235970093692512], [0.061142097326966044, 1.1065480770704634], [0.1761847358093551, 1.201121145400608], [0.23867122661254414, 1.0781731462547455], [0.19403451044937173, 0.9505641840991372], [0.23783023647890889, 0.887786075386577]], [[1.2539244682934196, 0.5303693446812358], [1.1730149456788306, 0.37786075574809164], [1.2062454070999211, 0.4542648050596271], [1.137379868213188, 0.3808945595832735], [1.2240552739029715, 0.5133464307842889], [1.2718474792440069, 0.45892920575063134], [1.1733221054282834, 0.3210875755819579], [1.1398842535649802, 0.4156280366220695]]], dtype=torch.float64).requires_grad_(), y=torch.tensor([[1, 1, 0, 1, 1, 0, 0, 0], [0, 1, 0, 1, 0, 0, 1, 1]], dtype=torch.long)),
    'attention_theory.trauger.sparse_majority.model.logits': lambda: dict(params={'Wq': torch.from_numpy(unif((2, 8, 8), -0.605, 0.618)).requires_grad_(), 'bq': torch.tensor([[0.01799484222176731, -0.019181134295369606, -0.01859219075273702, -0.0118780004577713, -0.0195273928356669, -0.019818128013008408, -0.01979126998623029, 0.017355064504458662], [0.01994978761123694, 0.019900554726389755, 0.019928419879585588, 0.01956228746593461, 0.01970473924772016, -0.01970556510195866, -0.01966041769089134, -0.019699722219936072]], dtype=torch.float64).requires_grad_(), 'Wk': torch.from_numpy(unif((2, 8, 8), -0.631, 0.623)).requires_grad_(), 'bk': torch.tensor([[8.901870468770994e-14, 9.130123557768695e-15, 6.8475926684430316e-15, 2.739037067327788e-14, 1.4745149543768927e-12, 1.1435479755055765e-12, -7.966032803535638e-13, 4.2340947997644075e-13], [5.0215679555549336e-14, 4.565061778907705e-14, 3.7661759675669096e-14, -1.8260247085003816e-14, 4.177031527551591e-13, 4.975917338830483e-13, -6.847592667706633e-15, -2.282530889407324e-14]], dtype=torch.float64).requires_grad_(), 'Wv': torch.from_numpy(unif((2, 8, 8), -0.591, 0.617)).requires_grad_(), 'bv': torch.tensor([[-0.016945680720125277, -0.01350350745910695, 0.017101679456504596, 0.016030059703324134, -0.01722424814380555, -0.017356375654899767, -0.017196144189861394, 0.01714757878996899], [0.019444586415199826, 0.01933796442620046, -0.019552046424065755, 0.01933476762471807, -0.019057132128076908, -0.01942462046142826, 0.019379349074598973, 0.019764900157163097]], dtype=torch.float64).requires_grad_(), 'Wo': torch.from_numpy(unif((2, 8, 8), -0.596, 0.621)).requires_grad_(), 'bo': torch.tensor([[0.017172334334109116, 0.017241054303058063, 0.017174447273325115, -0.017200675014631933, -0.017173954818451867, -0.01755808232331127, -0.017201557094136656, -0.01719332748549373], [-0.019497098436193572, 0.01983145639927608, 0.01947211991731066, -0.019497328257140817, 0.01956885385262507, -0.00918348395880657, 0.01987278381440636, 0.019503669466320518]], dtype=torch.float64).requires_grad_(), 'Wc': torch.tensor([[[-0.4292788987647347, 0.5688552015894517, -0.6390046069876623, 0.45720590139331224, 0.7031672512368413, -0.3775538917989288, 0.04604331715632615, 0.4161121818815545], [0.5123643428138194, 0.7628079532256477, 0.556755188586621, -0.06962164848019754, -0.4200143352910011, -0.4356520628576241, -0.4620636016228818, -0.4373428578221733]], [[-0.43801279745375093, 0.6858556974190648, 0.6859642495626447, -0.3950308237884765, 0.025278554092947682, 0.3804124339901477, 0.7241123117047246, 0.7369382261850083], [0.5815151071880644, 0.5814561225858212, 0.17847597916500568, 0.6334686809567879, -0.5780546854939851, 0.3491455062310959, 0.6309275001458002, -0.6391541971730593]]], dtype=torch.float64).requires_grad_(), 'bc': torch.tensor([[-0.017181986352867953, 0.01718198635286796], [0.01952288583487427, -0.01952288583487427]], dtype=torch.float64).requires_grad_()}, tokens=torch.from_numpy(ints((2, 8, 15), 0, 3)), heads=2, shared_padding=True, validate=False),
    'attention_theory.trauger.sparse_majority.model.logits_dense': lambda: dict(params={'Wq': torch.from_numpy(unif((16, 16), -1.093, 1.214)), 'bq': torch.tensor([0.015788698344955346, -0.11271759333304254, 0.004246512717649177, 0.09186087967631797, -0.3378583376370548, -0.36063112530241537, 0.5506415730020021, 0.3562106615168008, -0.21834940172580605, -0.12583567848988278, 0.02788563142818136, 0.09056022055677586, -0.45516759762281866, 0.5860739219074199, 0.03903825996277035, 0.049129549402252275], dtype=torch.float64), 'Wk': torch.from_numpy(unif((16, 16), -1.178, 1.004)), 'bk': torch.tensor([-0.046184772331801384, -0.1602855990274312, 0.6758410942294364, 0.05859924540842586, 0.08201397669186787, 0.2327136319898718, -0.22874973417155223, -0.15437568447208116, -0.15397907964884228, -0.12497694776035254, -0.4524453900584075, 0.36233452353976875, 0.15355887728925932, 0.18235958363297924, 0.5970581047622109, 0.5877376845181792], dtype=torch.float64), 'Wv': torch.from_numpy(unif((16, 16), -1.023, 1.239)), 'bv': torch.tensor([0.3203060554952734, -0.09441723386247163, 0.12671519412695503, -0.2075945163591654, 0.518562560319411, 0.33387692480813336, -0.28662248269649354, -0.2730976125737302, -0.34728272858575565, -0.5863364545608686, 0.04128316939072275, -0.2421103220530425, 0.08495778351504554, -0.6215193192151778, 0.07619233272470963, 0.06445783518687173], dtype=torch.float64), 'Wo': torch.from_numpy(unif((16, 16), -1.041, 1.125)), 'bo': torch.tensor([0.5521977143196842, 0.004206463429133917, -0.11856470465144514, 0.2775684994501097, 0.18138502913324614, -0.43688399790122817, -0.2941460175769349, 0.0530355781872051, -0.5951401794251131, 0.2652120590668443, 0.5157220024513471, -0.6954450357367827, -0.43368987585252283, -0.06171305281088819, 0.22818357924343777, 0.406132984680957], dtype=torch.float64), 'Wc': torch.tensor([[0.7707170293892013, 0.06675306547230256, -0.10790215530489677, 0.6507475193373131, -0.32594904442478895, 0.5906043322747624, -0.33860661369560513, 0.0010254128117606412, -0.9136928636496812, -0.10912642063024053, 0.06792744844056817, 0.5452238187984457, 0.8029637805167771, 0.03444328323942805, 0.1993918122030387, 0.019620501677358182], [-0.3332819614964622, 0.02001877854096143, -0.219941003414491, -1.004998410803442, 0.45151477350324987, 0.16807310933411784, -0.30746201347464824, 0.01176478503845145, 0.34690316921891695, 0.1292299080738495, -0.22445722881088276, -0.27512784845668004, 0.5463230002852295, -0.2778449697049606, 0.6133570163980486, 0.2994538451206165]], dtype=torch.float64), 'bc': torch.tensor([0.41196567148563323, -0.4073952612237823], dtype=torch.float64)}, X=torch.from_numpy(unif((20, 13, 16), -1.0, 1.989)), heads=2),
    'attention_theory.trauger.sparse_majority.model.param_count': lambda: dict(params={'Wq': torch.from_numpy(unif((64, 64), -0.216, 0.216).astype(np.float32)), 'bq': torch.from_numpy(ints((64,), 0, 0).astype(float)), 'Wk': torch.from_numpy(unif((64, 64), -0.216, 0.216).astype(np.float32)), 'bk': torch.from_numpy(ints((64,), 0, 0).astype(float)), 'Wv': torch.from_numpy(unif((64, 64), -0.216, 0.216).astype(np.float32)), 'bv': torch.from_numpy(ints((64,), 0, 0).astype(float)), 'Wo': torch.from_numpy(unif((64, 64), -0.216, 0.216).astype(np.float32)), 'bo': torch.from_numpy(ints((64,), 0, 0).astype(float)), 'Wc': torch.from_numpy(unif((2, 64), -0.298, 0.3).astype(np.float32)), 'bc': torch.tensor([0.0, 0.0], dtype=torch.float32)}),
    'attention_theory.trauger.sparse_majority.model.stack_params': lambda: dict(runs=[{'Wq': torch.from_numpy(unif((8, 8), -0.585, 0.602)), 'bq': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wk': torch.from_numpy(unif((8, 8), -0.596, 0.557)), 'bk': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wv': torch.from_numpy(unif((8, 8), -0.567, 0.604)), 'bv': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wo': torch.from_numpy(unif((8, 8), -0.605, 0.547)), 'bo': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wc': torch.tensor([[-0.7168248396019461, -0.6796033979915872, 0.23181247562046983, -0.005830433142176227, 0.6026960848534269, -0.5430620525201607, -0.7390409884021213, 0.0022222253444389105], [-0.22998861711450294, 0.3177137231561748, 0.37736929764519805, -0.3389619980038842, 0.5016715593171223, -0.43072085437414354, -0.21095995331254883, -0.4031033036398221]], dtype=torch.float64), 'bc': torch.tensor([0.0, 0.0], dtype=torch.float64)}]),
    'attention_theory.trauger.sparse_majority.model.to_torch_modules': lambda: dict(params={'Wq': torch.from_numpy(unif((8, 8), -0.585, 0.602)), 'bq': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wk': torch.from_numpy(unif((8, 8), -0.596, 0.557)), 'bk': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wv': torch.from_numpy(unif((8, 8), -0.567, 0.604)), 'bv': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wo': torch.from_numpy(unif((8, 8), -0.605, 0.547)), 'bo': torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=torch.float64), 'Wc': torch.tensor([[-0.7168248396019461, -0.6796033979915872, 0.23181247562046983, -0.005830433142176227, 0.6026960848534269, -0.5430620525201607, -0.7390409884021213, 0.0022222253444389105], [-0.22998861711450294, 0.3177137231561748, 0.37736929764519805, -0.3389619980038842, 0.5016715593171223, -0.43072085437414354, -0.21095995331254883, -0.4031033036398221]], dtype=torch.float64), 'bc': torch.tensor([0.0, 0.0], dtype=torch.float64)}, heads=2),
    'attention_theory.trauger.sparse_majority.model.weight_l1': lambda: dict(params={'Wq': torch.from_numpy(unif((2, 8, 8), -0.633, 0.648)).requires_grad_(), 'bq': torch.tensor([[0.0487226840167541, -0.052044309003580216, -0.05163072596268205, -0.012499498769979984, -0.04064988086941452, -0.03020108647714237, -0.02759283845386846, 0.004439547603906045], [0.01825429082966793, 0.08501019664976237, 0.020220731232718756, -0.016345136460675397, 0.06614673128028059, -0.060390875734594146, -0.05481276228685381, -0.06961767992586564]], dtype=torch.float64).requires_grad_(), 'Wk': torch.from_numpy(unif((2, 8, 8), -0.66, 0.669)).requires_grad_(), 'bk': torch.tensor([[3.5071763369171644e-13, -2.0853285624332776e-13, -1.6404315321533023e-13, 1.1626621979692415e-13, 7.722401954099482e-12, 3.93072545520252e-12, -4.537021831527782e-12, 1.8813875516098253e-12], [-1.885726163042838e-12, 3.5096583497676237e-13, 7.916937095605329e-14, 2.7744234584219113e-12, 5.875045171287208e-13, 1.1554973396398084e-12, 5.20957286518985e-15, -5.913465091873008e-14]], dtype=torch.float64).requires_grad_(), 'Wv': torch.from_numpy(unif((2, 8, 8), -0.631, 0.662)).requires_grad_(), 'bv': torch.tensor([[-0.08227533420933268, -0.044472488472425624, 0.039785425892514326, 0.05293569484445756, -0.0006360852945859995, 0.005758423900020905, -0.0038820694402192475, 0.008707085160372333], [0.03727051024414983, 0.029835618297152852, -0.02889502074398772, 0.045739737741992754, -0.04695337055357929, -0.04088398459365931, 0.043934791654851015, 0.018956213681543085]], dtype=torch.float64).requires_grad_(), 'Wo': torch.from_numpy(unif((2, 8, 8), -0.677, 0.661)).requires_grad_(), 'bo': torch.tensor([[0.005880641708265107, 9.244010972991076e-05, 0.006530520970246326, -0.004022117735567306, -0.006385094632382247, 0.01037995009002211, -0.003633395568249804, -0.004322387766458758], [-0.03274602093332361, 0.01470997391821905, 0.0356357741165631, -0.03254192962254926, 0.028576520017287173, -0.04173688647956747, 0.01421436421469861, 0.03206367175663422]], dtype=torch.float64).requires_grad_(), 'Wc': torch.tensor([[[-0.48298346670783304, 0.5275957264622689, -0.5636991858638926, 0.4235225023138634, 0.6493998421346611, -0.39196456915221706, 0.03918176931504779, 0.41479089259839025], [0.5660689107569179, 0.8040674283528304, 0.4814497674628513, -0.03593824940074867, -0.3662469261888208, -0.4212413855043358, -0.4552020537816034, -0.43602156853900903]], [[-0.3814675534307034, 0.7091868935515397, 0.6144593169682366, -0.3624909432437967, 0.013553815571049878, 0.4184148855586989, 0.7322395021029935, 0.6695042394388679], [0.5249698631650169, 0.5581249264533463, 0.24998091175941378, 0.6009288004121082, -0.5663299469720872, 0.3111430546625447, 0.6228003097475313, -0.571720210426919]]], dtype=torch.float64).requires_grad_(), 'bc': torch.tensor([[-0.005563947238036947, 0.005563947238036961], [0.0306880611637907, -0.030688061163790692]], dtype=torch.float64).requires_grad_()}, include_biases=False),
    'attention_theory.trauger.sparse_majority.protocol.format_table': lambda: dict(rows=[{'setting': 'sequence lengths T', 'paper': '20, 40, ..., 200', 'authors_code': 'argv[1] (l. 145), one process per (T, run)', 'book': '[20, 40, 60, 80, 100, 120, 140, 160, 180, 200]', 'book_v1': '[20, 40, 60, 80, 100, 120, 140, 160, 180, 200]', 'departure': ''}, {'setting': 'runs per T', 'paper': '5, a new data set each time', 'authors_code': 'argv[3] is the run id (l. 146); every process draws new data (l. 153-154)', 'book': 'seeds [0, 1, 2, 3, 4]', 'book_v1': 'seeds 0-4', 'departure': ''}, {'setting': 'random seeds', 'paper': 'silent', 'authors_code': "none: NumPy's and TensorFlow's global generators, unseeded (l. 24-28, 43, 153)", 'book': 'per run (T, seed) five independent seeded streams (index set, sequences, embeddings, initialization, shuffling)', 'book_v1': 'seeded', 'departure': 'the runs must be reproducible; the seeds are published with the results'}, {'setting': 'index set I', 'paper': '|I| = 9 < T', 'authors_code': 'np.random.choice(T, 9, replace=False) (l. 148, 153)', 'book': 'uniform 9-subset of the T positions, new per run', 'book_v1': 'uniform 9-subset, new per run', 'departure': ''}, {'setting': 'sequences', 'paper': 'binary, length T', 'authors_code': 'i.i.d. uniform bits, np.random.choice([0, 1]) (l. 43)', 'book': 'i.i.d. uniform bits', 'book_v1': 'i.i.d. uniform bits', 'departure': ''}, {'setting': 'label', 'paper': '1{sum_{i in I} S_i > |I|/2}', 'authors_code': '1*(sum >= s/2) (l. 37): the same for odd s', 'book': '1{sum_{i in I} S_i > k/2}', 'book_v1': 'same', 'departure': ''}, {'setting': 'training and validation data', 'paper': '300 training samples, validation set of 10000', 'authors_code': "one draw of 10,300 sequences: the first 300 train, the other 10,000 validate (l. 150-158); they are also the reported 'test' set (l. 183)", 'book': 'one draw of 10,300: first 300 train, 10,000 validate', 'book_v1': '300 training and 10,000 validation sequences, separate draws', 'departure': ''}, {'setting': 'symbol embeddings', 'paper': '0 and 1 embedded as orthogonal vectors of R^d', 'authors_code': '0, 1 and [CLS] ~ U(-1, 1)^64, Gram-Schmidt in that order, each scaled to unit l1 norm; new per run (l. 23-34, 46)', 'book': 'the same construction, seeded per run', 'book_v1': 'the first three standard basis vectors (unit l2 norm), fixed', 'departure': ''}, {'setting': '[CLS] token', 'paper': 'the [CLS] output is read out', 'authors_code': '[CLS] is the last position T (l. 57); the read-out takes position -1 (l. 103)', 'book': '[CLS] at the last position T, read there', 'book_v1': '[CLS] first (position 0)', 'departure': ''}, {'setting': 'positional encoding', 'paper': 'Vaswani et al. (2017)', 'authors_code': 'PE[j, i] = sin(j / 10000^(i/d)) for even i, cos(j / 10000^(i/d)) for odd i (l. 77-90): an odd column uses exponent i/d, not (i-1)/d; added at every position including [CLS] (l. 58)', 'book': "the authors' formula", 'book_v1': 'Vaswani et al. (paired frequencies)', 'departure': ''}, {'setting': 'attention layer', 'paper': 'TensorFlow MultiHeadAttention, embedding dimension 64, 2 heads', 'authors_code': 'MultiHeadAttention(num_heads=2, key_dim=64) (l. 108): key_dim and value_dim 64 per head, biases, logits scaled by 1/sqrt(64), output projection to 64; self-attention over all T + 1 positions (l. 113)', 'book': '2 heads, key_dim 64, value_dim 64, biases; only the [CLS] query is formed (the only one read)', 'book_v1': '2 heads of width 32 (64 / 2)', 'departure': ''}, {'setting': 'after the attention layer', 'paper': 'a layer that extracts [CLS] and maps it linearly to R^2', 'authors_code': 'ReLU, then Dense(64) at every position (l. 109-115), then the read-out of the last position to 2 logits (l. 93-103)', 'book': 'ReLU, Dense(64), read-out', 'book_v1': 'read-out only', 'departure': ''}, {'setting': 'initialization', 'paper': 'silent', 'authors_code': "Keras defaults: glorot_uniform kernels with Keras' fans for rank-3 kernels (query/key/value (64, 2, 64): U(-0.0377, 0.0377); output (2, 64, 64): U(-0.153, 0.153)), Dense U(-0.217, 0.217), read-out random_normal N(0, 0.05^2) (l. 97), zero biases", 'book': 'the same distributions', 'book_v1': 'Glorot-uniform on every (out, in) matrix, zero biases', 'departure': ''}, {'setting': 'loss', 'paper': 'cross-entropy', 'authors_code': 'BinaryCrossentropy(from_logits=True) of the 2 logits against one-hot labels (l. 164, 179): per sample the mean over the 2 logits of the sigmoid cross-entropy', 'book': 'the same', 'book_v1': 'softmax cross-entropy', 'departure': ''}, {'setting': 'optimizer', 'paper': 'silent', 'authors_code': "SGD(learning_rate=0.01, momentum=0.9) (l. 165): v <- 0.9 v - lr g, w <- w + v (Keras' form; torch.optim.SGD differs once lr changes)", 'book': 'the same update', 'book_v1': 'Adam, lr 1e-3, betas (0.9, 0.999), eps 1e-7', 'departure': ''}, {'setting': 'learning-rate schedule', 'paper': 'silent', 'authors_code': 'LearningRateScheduler (l. 139-141, 167): at the start of every epoch lr <- max(0.001, 0.999 lr); the first epoch runs at 0.00999, the floor is reached at epoch 2,302; lr is held in float32', 'book': 'the same, float32 rounding included', 'book_v1': 'constant', 'departure': ''}, {'setting': 'batch size', 'paper': '128', 'authors_code': 'argv[2] (l. 178); Keras shuffles every epoch: 128, 128, 44', 'book': '128, each run reshuffled every epoch by its own generator', 'book_v1': '128', 'departure': ''}, {'setting': 'epochs', 'paper': '200000', 'authors_code': 'epochs=200000 (l. 179)', 'book': 'at most 200,000', 'book_v1': '200,000', 'departure': ''}, {'setting': 'early stopping', 'paper': 'silent', 'authors_code': "PerfectTrainAccCallback (l. 119-137, 176): stop after the first epoch whose training accuracy is 1.0; that accuracy is Keras' running mean over the epoch's minibatches, each measured before its update", 'book': 'the same rule, from the minibatch forwards', 'book_v1': 'none', 'departure': ''}, {'setting': 'accuracy', 'paper': 'silent', 'authors_code': "metrics=['accuracy'] with 2-column one-hot targets: Keras picks categorical accuracy (arg-max) (l. 165)", 'book': 'arg-max of the 2 logits (ties: class 0)', 'book_v1': 'arg-max', 'departure': ''}, {'setting': 'validation frequency', 'paper': 'silent', 'authors_code': 'validation_freq=1 (l. 179): after every epoch', 'book': "after each of the first 500 epochs, then every 50 epochs, and after a run's stopping epoch (4,490 scheduled evaluations in 200,000 epochs)", 'book_v1': 'every 500 epochs', 'departure': "cost: on a CPU one validation pass (10,300 sequences per run) costs as much as 5 to 10 training epochs, so validating after every epoch would multiply the sweep's time by 6 to 11; late in training the learning rate is at its floor and the validation loss changes little over 50 epochs"}, {'setting': 'best epoch', 'paper': "'the best epoch'", 'authors_code': "ModelCheckpoint(monitor='val_loss', mode='min', save_best_only=True) (l. 168-175): the lowest validation loss, the earliest on ties, the stopping epoch included; reloaded before the report (l. 180)", 'book': 'lowest validation loss among the evaluated epochs, earliest on ties', 'book_v1': 'lowest validation cross-entropy among evaluated epochs', 'departure': ''}, {'setting': 'weight norm (Fig. 1)', 'paper': 'sum of the absolute values of all the weights', 'authors_code': 'sum over model.trainable_variables of tf.norm(ord=1) of the flattened tensor, biases included, after reloading the best weights (l. 180, 184-195); variables are deduplicated by name (l. 187), which under Keras 2 (full variable paths) keeps all', 'book': 'the same, at the best epoch (also without biases)', 'book_v1': 'the same (also without biases)', 'departure': ''}, {'setting': 'generalization gap (Fig. 2)', 'paper': 'cross-entropy generalization gap', 'authors_code': 'printed as train loss - test loss at the best weights (l. 200-203), losses as in the loss row', 'book': 'validation loss - training loss at the best epoch; both losses are stored', 'book_v1': 'validation CE - training CE', 'departure': "the sign: a positive gap means overfitting, as in the paper's wording; the authors' printed value is its negative"}, {'setting': 'validation accuracy (Fig. 3)', 'paper': 'validation accuracy of the best epoch', 'authors_code': 'test accuracy at the best weights (l. 183)', 'book': 'validation accuracy at the best epoch', 'book_v1': 'same', 'departure': ''}, {'setting': 'precision', 'paper': 'silent', 'authors_code': 'float32 (Keras default)', 'book': 'float32 (tests: float64)', 'book_v1': 'float32', 'departure': ''}, {'setting': 'hardware and batching', 'paper': 'NVIDIA Tesla V100', 'authors_code': 'one process per run', 'book': 'all runs in one process on a CPU, stacked along a run axis; each run keeps its own parameters, shuffling, stopping and best epoch', 'book_v1': 'stacked runs', 'departure': ''}]),
    'attention_theory.trauger.sparse_majority.protocol.learning_rates': lambda: dict(config=ProtocolConfig(name='authors', Ts=(10, 13), seeds=(0, 1, 2), n_train=40, n_val=50, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.5, momentum=0.9, lr_decay=0.5, lr_floor=0.01, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=16, max_epochs=3, early_stopping='none', patience=None, selection='val-loss', eval_every=1, eval_dense_until=0, checkpoint_every=2, dtype='float64', val_chunk=20), epochs=3),
    'attention_theory.trauger.sparse_majority.protocol.protocol': lambda: dict(name='authors', scale='full', overrides={'Ts': (10, 13), 'seeds': (0, 1, 2), 'n_train': 40, 'n_val': 50, 'batch_size': 16, 'max_epochs': 6, 'eval_dense_until': 0, 'eval_every': 1, 'checkpoint_every': 2, 'dtype': 'float64', 'val_chunk': 20}),
    'attention_theory.trauger.sparse_majority.protocol.protocol_table': lambda: dict(config=ProtocolConfig(name='authors', Ts=(20, 40, 60, 80, 100, 120, 140, 160, 180, 200), seeds=(0, 1, 2, 3, 4), n_train=300, n_val=10000, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.01, momentum=0.9, lr_decay=0.999, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=128, max_epochs=200000, early_stopping='train-accuracy-1', patience=None, selection='val-loss', eval_every=1, eval_dense_until=500, checkpoint_every=1000, dtype='float32', val_chunk=1000)),
    'attention_theory.trauger.sparse_majority.structured.build_authors_data': lambda: dict(config=ProtocolConfig(name='authors', Ts=(20,), seeds=(0,), n_train=300, n_val=50, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.01, momentum=0.9, lr_decay=0.999, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=128, max_epochs=6, early_stopping='train-accuracy-1', patience=None, selection='val-loss', eval_every=2, eval_dense_until=2, checkpoint_every=2, dtype='float32', val_chunk=500)),
    'attention_theory.trauger.sparse_majority.structured.structured_flops': lambda: dict(config=ProtocolConfig(name='authors', Ts=(10, 12), seeds=(0,), n_train=20, n_val=10, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.01, momentum=0.9, lr_decay=0.999, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=8, max_epochs=200000, early_stopping='train-accuracy-1', patience=None, selection='val-loss', eval_every=50, eval_dense_until=500, checkpoint_every=1000, dtype='float32', val_chunk=1000), T=12, method='softmax'),
    'attention_theory.trauger.sparse_majority.structured_forward.structured_logits': lambda: dict(flat=torch.from_numpy(unif((3, 37506), -5.412, 5.412)), bits=torch.from_numpy(ints((3, 40, 13), 0, 1)), embeddings=torch.from_numpy(unif((3, 3, 64), -0.04, 0.035)), config=ProtocolConfig(name='authors', Ts=(10, 13), seeds=(0, 1, 2), n_train=40, n_val=50, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.01, momentum=0.9, lr_decay=0.999, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=16, max_epochs=6, early_stopping='train-accuracy-1', patience=None, selection='val-loss', eval_every=1, eval_dense_until=0, checkpoint_every=2, dtype='float64', val_chunk=20), method='softmax'),
    'attention_theory.trauger.sparse_majority.structured_forward.structured_loss': lambda: dict(flat=torch.from_numpy(unif((3, 16770), -4.419, 4.417)).requires_grad_(), bits=torch.from_numpy(ints((3, 40, 13), 0, 1)), embeddings=torch.from_numpy(unif((3, 3, 64), -0.04, 0.035)), labels=torch.from_numpy(ints((3, 40), 0, 1)), config=ProtocolConfig(name='authors', Ts=(10, 13), seeds=(0, 1, 2), n_train=40, n_val=50, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=32, value_dim=32, dense_units=None, init='keras', loss='softmax-ce', optimizer='sgd-momentum-keras', lr=0.01, momentum=0.9, lr_decay=0.999, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=16, max_epochs=6, early_stopping='train-accuracy-1', patience=None, selection='val-loss', eval_every=1, eval_dense_until=0, checkpoint_every=2, dtype='float64', val_chunk=20), method='softmax'),
    'attention_theory.trauger.sparse_majority.structured.train_structured': lambda: dict(config=ProtocolConfig(name='authors', Ts=(10, 13), seeds=(0, 1, 2), n_train=40, n_val=50, k=9, d=64, embeddings='random-orthogonal-l1', cls_position='last', positional='authors', heads=2, key_dim=64, value_dim=64, dense_units=64, init='keras', loss='bce-two-logits', optimizer='sgd-momentum-keras', lr=0.3, momentum=0.9, lr_decay=0.9, lr_floor=0.001, adam_betas=(0.9, 0.999), adam_eps=1e-07, batch_size=16, max_epochs=30, early_stopping='val-patience', patience=2, selection='val-loss', eval_every=1, eval_dense_until=0, checkpoint_every=2, dtype='float64', val_chunk=20), progress=False),
    'attention_theory.trauger.sparse_majority.theory.bound_per_run': lambda: dict(weights={'T': np.array([20, 60], dtype=np.int64), 'seed': np.array([0, 0], dtype=np.int64), 'best_epoch': np.array([1, 6], dtype=np.int64), 'flat': unif((2, 37506), -0.433, 0.433).astype(np.float32)}),
    'attention_theory.trauger.sparse_majority.theory.class_logits': lambda: dict(params={'W_qk': torch.from_numpy(unif((2, 65, 65), -0.329, 0.371)), 'W_v': torch.from_numpy(unif((2, 65, 64), -3.082, 3.143)), 'W_c': torch.from_numpy(unif((64, 64), -1.07, 1.242)), 'w': torch.from_numpy(unif((2, 64), -0.861, 0.769)), 'c': torch.tensor([0.0, 0.0], dtype=torch.float64)}, X=torch.from_numpy(unif((8, 11, 64), -1.007, 1.034))),
    'attention_theory.trauger.sparse_majority.theory.class_parameters': lambda: dict(flat=torch.from_numpy(unif((37506,), -0.216, 0.216)), shape=ModelShape(d=64, heads=2, key_dim=64, value_dim=64, dense_units=64, n_classes=2)),
    'attention_theory.trauger.sparse_majority.theory.cor411_norms': lambda: dict(params={'W_qk': torch.from_numpy(unif((2, 65, 65), -0.008, 0.007)), 'W_v': torch.from_numpy(unif((2, 65, 64), -0.251, 0.215)), 'W_c': torch.from_numpy(unif((64, 64), -0.433, 0.433)), 'w': torch.from_numpy(unif((2, 64), -0.257, 0.197)), 'c': torch.tensor([-0.00994833718123539, 0.007472892925093186], dtype=torch.float64)}),
    'attention_theory.trauger.sparse_majority.theory.gap_bound': lambda: dict(norms={'B_w': 5.399773947894573, 'B_Wc': 15.708470375277102, 'B_Wv': 4.128372993228615, 'B_QK': 6.1870524406609935, 'c_max': 0.00994833718123539, 'H': 2}, B_x=6.051899218474601, m=300, d=64, delta=0.05),
    'attention_theory.trauger.sparse_majority.theory.token_bound': lambda: dict(embeddings=torch.from_numpy(unif((3, 64), -0.033, 0.032)), T=20),
    'attention_theory.trauger.sparse_majority.training.adam_step': lambda: dict(params={'Wq': torch.from_numpy(unif((2, 8, 8), -0.622, 0.636)).requires_grad_(), 'bq': torch.tensor([[0.036419916101858796, -0.041138548133075686, -0.03964298448812989, -0.002462730021855172, -0.03829403813640205, -0.03723851395880381, -0.03635381331340728, 0.02698304090298426], [0.04343203268690436, 0.03348235398867818, 0.0434308936498054, 0.0326108100049286, 0.04541065532327597, -0.045252031694968456, -0.044561578172154115, -0.045536319718425505]], dtype=torch.float64).requires_grad_(), 'Wk': torch.from_numpy(unif((2, 8, 8), -0.657, 0.642)).requires_grad_(), 'bk': torch.tensor([[3.0616182706045664e-13, -1.3882611468455694e-13, -1.5968991095918552e-13, 8.893082093985453e-14, 3.099986176073985e-12, 1.979712118761778e-12, -1.793077301760588e-12, 6.960188601721921e-13], [-5.266420543962708e-13, 1.6638882684560765e-13, 6.80042609803089e-14, 9.60209809855324e-13, 6.212803187478201e-13, 8.867071353118713e-13, -2.560871131760629e-14, -5.4118500240430616e-14]], dtype=torch.float64).requires_grad_(), 'Wv': torch.from_numpy(unif((2, 8, 8), -0.598, 0.641)).requires_grad_(), 'bv': torch.tensor([[-0.036808135763048165, -0.014184420252446695, 0.031575720425360415, 0.01940682327617277, -0.025603739533573564, -0.023571051218237046, -0.0265497079437414, 0.02781885159070549], [0.042614727995404306, 0.04192901591460355, -0.042728297313859735, 0.042339447877954496, -0.04086893355763311, -0.04257329388402875, 0.04248227226742446, 0.042649537902477316]], dtype=torch.float64).requires_grad_(), 'Wo': torch.from_numpy(unif((2, 8, 8), -0.622, 0.645)).requires_grad_(), 'bo': torch.tensor([[0.02709785048066091, 0.025371403808030144, 0.027264499107419207, -0.026593039897278032, -0.02721467511885208, -0.02219577881389828, -0.026482668960210835, -0.026685283221880823], [-0.042691721757246115, 0.04246868985576536, 0.04266600364674463, -0.042694636103766594, 0.04277424644597495, 0.002807594793068728, 0.04235865067188556, 0.04268978304536766]], dtype=torch.float64).requires_grad_(), 'Wc': torch.tensor([[[-0.43712751188848104, 0.5486193345022189, -0.6141223090492324, 0.4594751270531592, 0.684320243806523, -0.3686855959647623, 0.05625847493709633, 0.4284245570427105], [0.5202129559375657, 0.7830438203128804, 0.5318728906481911, -0.0718908741400445, -0.4011673278606828, -0.4445203586917906, -0.47227875940365194, -0.44965523298332927]], [[-0.4156438619008935, 0.7112290173470238, 0.660194872462357, -0.3725693521486434, 0.04415270766259859, 0.40430733202266933, 0.747924170508473, 0.7197740086555056], [0.5591461716352071, 0.5560828026578623, 0.20424535626529342, 0.6110072093169547, -0.596928839063636, 0.32525060819857426, 0.6071156413420518, -0.6219899796435566]]], dtype=torch.float64).requires_grad_(), 'bc': torch.tensor([[-0.02701411146566268, 0.02701411146566269], [0.04272747163791057, -0.04272747163791057]], dtype=torch.float64).requires_grad_()}, grads=(torch.from_numpy(unif((2, 8, 8), -0.054, 0.051)), torch.tensor([[0.0025936384252135554, -0.0011021814402103342, -0.001711367692524589, -0.0013335045038373864, -0.006528258014493448, -0.04075059196330191, -0.053651091745084284, 0.05105446763225023], [0.009878262084293842, -0.0018362236301566735, 0.011330091602806909, 0.0063310545159641594, 0.00941589581577841, -0.009362250544889036, -0.025022345927615534, -0.006559956386969442]], dtype=torch.float64), torch.from_numpy(unif((2, 8, 8), -0.149, 0.132)), torch.tensor([[-8.538092108323347e-19, 7.453889935837843e-19, 5.692061405548898e-19, -1.5924219408380846e-19, -1.0408340855860843e-17, -6.071532165918825e-18, 3.469446951953614e-18, -8.673617379884035e-19], [4.336808689942018e-19, 0.0, 3.3881317890172014e-20, -2.6020852139652106e-18, -8.673617379884035e-19, -8.673617379884035e-19, 1.0842021724855044e-19, 2.710505431213761e-20]], dtype=torch.float64), torch.from_numpy(unif((2, 8, 8), -0.367, 0.138)), torch.tensor([[0.015460979393613801, 0.021804766903277303, 0.016585178411491174, -0.04261043567472098, -0.13591068067842857, -0.05096885913391383, -0.3672490023658611, 0.1383669307849827], [0.13758373873866686, 0.07478850627837154, -0.20054202616373265, 0.059830625944549826, -0.0031047924387094935, -0.12346377532295655, 0.0973278627834005, 0.09432413769529036]], dtype=torch.float64), torch.from_numpy(unif((2, 8, 8), -0.3, 0.234)), torch.tensor([[0.1661296548228843, 0.039757268244284175, 0.2044907066874134, -0.09502014600160356, -0.19350745038962167, -0.013961209545781585, -0.09331333384330096, -0.1544275977244684], [-0.17832308943196898, 0.025810423785618177, 0.08509560936117871, -0.1796444421263594, 0.11490607671009584, 0.012046192757648335, 0.023690203476673145, 0.2443555678688593]], dtype=torch.float64), torch.tensor([[[0.11226345776137239, -0.034158179738534, -0.03819469205557263, 0.06752293783376373, 0.05037324673480275, 0.23373940841552024, 0.04878863426111642, 0.07354616468949082], [-0.11226345776137239, 0.034158179738534, 0.03819469205557263, -0.06752293783376374, -0.05037324673480275, -0.2337394084155202, -0.04878863426111641, -0.07354616468949081]], [[-0.005475692532617864, 0.04673390367911667, 0.00911088015112927, 0.07050871652081646, 0.10665581982319088, 0.034007366347238735, 0.14231904538806972, 0.042431280610330836], [0.005475692532617865, -0.04673390367911667, -0.009110880151129269, -0.07050871652081646, -0.10665581982319089, -0.034007366347238735, -0.14231904538806972, -0.04243128061033084]]], dtype=torch.float64), torch.tensor([[-0.17584409356455294, 0.17584409356455294], [0.1805811928015006, -0.1805811928015006]], dtype=torch.float64)), m={'Wq': torch.from_numpy(unif((2, 8, 8), -0.009, 0.012)), 'bq': torch.tensor([[-0.0012651775156646739, 0.0007437779629341743, 0.001818924227655544, -0.0002505966529762796, 0.0004075244651158516, 0.00018478537941834166, -0.0004162529127760889, 0.002518337170067341], [-0.0015153020761473424, -0.00018714333704505394, -0.0019164339663636273, 0.00034235521351475213, -0.008632807441692413, 0.005229913814861397, 0.011780862540046162, 0.007314948159833474]], dtype=torch.float64), 'Wk': torch.from_numpy(unif((2, 8, 8), -0.014, 0.009)), 'bk': torch.tensor([[-2.859821754408464e-19, 2.1877898798150496e-19, 2.1484116569103757e-19, -7.44613789030457e-20, -1.894760390253047e-18, -9.32010545129369e-19, 7.515819563930214e-19, -1.5870985081711816e-19], [5.969877370226582e-19, -1.2238745173559495e-19, -2.708553867303287e-20, -1.2068536274500995e-18, -1.086034474157005e-19, -2.37845767386835e-19, -1.251819828351763e-20, 1.5273698104889538e-20]], dtype=torch.float64), 'Wv': torch.from_numpy(unif((2, 8, 8), -0.055, 0.063)), 'bv': torch.tensor([[0.004571899877562562, 0.002825697457047812, -0.002683946106394271, -0.00550221329015773, -0.008365445713900766, -0.004278364647879159, -0.01769160404063128, 0.003594121424558758], [-0.04677075569977109, -0.022922342035883784, 0.04981081083721535, -0.029545423199709115, 0.00736949035516126, 0.04434682455876709, -0.0414851499493824, -0.014341790900913226]], dtype=torch.float64), 'Wo': torch.from_numpy(unif((2, 8, 8), -0.074, 0.098)), 'bo': torch.tensor([[0.0065287795949602314, 0.0025685646041210632, 0.007414934473763468, -0.0045142063772644625, -0.007178354338749324, -0.001345775085411737, -0.004599253705203581, -0.007127574747118541], [0.05192405353034302, -0.0033052108577831738, -0.026773977064045787, 0.052406118403914626, -0.028013931251592596, 0.00020026219969868816, -0.002764648129855055, -0.06930998282110971]], dtype=torch.float64), 'Wc': torch.tensor([[[0.01873741180286981, 0.010587456922536535, -0.014238377146765423, 0.007583399195484331, 0.00928662389223221, 0.012706134309624417, 0.0017223297938159575, 0.00017281511716592875], [-0.01873741180286981, -0.010587456922536535, 0.014238377146765423, -0.007583399195484333, -0.00928662389223221, -0.012706134309624414, -0.0017223297938159558, -0.00017281511716592908]], [[-0.025620015894079425, -0.018856213667932123, 0.02675465403904359, -0.046047815512409204, -0.00901308075693116, -0.023819529823892818, -0.03073879428057294, 0.013147444239753836], [0.025620015894079425, 0.018856213667932123, -0.02675465403904359, 0.046047815512409204, 0.00901308075693116, 0.023819529823892814, 0.030738794280572947, -0.01314744423975384]]], dtype=torch.float64), 'bc': torch.tensor([[-0.007166791619870617, 0.00716679161987061], [-0.04928338051635528, 0.04928338051635528]], dtype=torch.float64)}, v={'Wq': torch.from_numpy(unif((2, 8, 8), 0.0, 0.0)), 'bq': torch.tensor([[2.9150533269600316e-07, 5.83830282442565e-08, 3.553755954787436e-07, 4.9379864710763245e-09, 1.3530812349035778e-07, 3.0717050573475908e-06, 4.965790334978731e-06, 6.059843990602909e-06], [3.9400903461929703e-07, 3.385182349907482e-09, 5.852770395983599e-07, 5.014176938474658e-08, 4.750074228941992e-06, 1.947183103553594e-06, 1.1122758208883071e-05, 3.274263118684215e-06]], dtype=torch.float64), 'Wk': torch.from_numpy(unif((2, 8, 8), 0.0, 0.0)), 'bk': torch.tensor([[3.16791083032074e-39, 2.1509877061660292e-39, 2.903412222866115e-39, 2.305909293155791e-40, 1.0722102860378084e-36, 3.3560253213530845e-37, 5.961967561746658e-37, 6.095633149443781e-38], [2.2178420222760753e-37, 1.893701241969385e-38, 3.614234259825589e-39, 6.008335298783186e-37, 4.4672869696537184e-38, 6.010886061692729e-38, 5.369331448645569e-39, 1.7268118319881964e-39]], dtype=torch.float64), 'Wv': torch.from_numpy(unif((2, 8, 8), 0.0, 0.0)), 'bv': torch.tensor([[1.1804652516027857e-06, 9.949827509368486e-07, 4.669042493030158e-06, 2.8449507310959087e-06, 4.651137322387867e-05, 5.600104257308559e-06, 0.0003899492444034396, 6.61704341885393e-05], [0.00023561282007132417, 6.237612446419923e-05, 0.00031305858736594577, 8.346585794988048e-05, 4.644036746122746e-06, 0.00020736561090396965, 0.00017090251689678483, 3.804981651601333e-05]], dtype=torch.float64), 'Wo': torch.from_numpy(unif((2, 8, 8), 0.0, 0.001)), 'bo': torch.tensor([[8.537200099651276e-05, 3.852992206381363e-06, 0.0001350283667967768, 2.6495112631493873e-05, 0.00011987061884012766, 3.925475200641843e-07, 2.4899716324400715e-05, 6.997418747773581e-05], [0.00031150904250230405, 2.4222599849851613e-06, 7.977458378917573e-05, 0.00031695281326370097, 9.9860461457469e-05, 2.416135482602489e-07, 1.8857414341899386e-06, 0.0005629173023010507]], dtype=torch.float64), 'Wc': torch.tensor([[[2.638386618264012e-05, 1.922463384015716e-05, 8.434527794373482e-06, 8.450571536241659e-06, 4.585653918318142e-06, 0.00015156778676157326, 7.839255007252328e-06, 2.180230993812883e-05], [2.638386618264012e-05, 1.9224633840157167e-05, 8.434527794373482e-06, 8.450571536241662e-06, 4.585653918318142e-06, 0.00015156778676157326, 7.839255007252328e-06, 2.1802309938128828e-05]], [[4.839704518601935e-05, 2.8356246866374088e-05, 3.647965702027128e-05, 0.00019990571010286554, 4.251295896116048e-05, 4.428400364972283e-05, 0.00012152525445903766, 1.5836976111951988e-05], [4.839704518601935e-05, 2.8356246866374088e-05, 3.647965702027128e-05, 0.00019990571010286554, 4.251295896116049e-05, 4.428400364972283e-05, 0.00012152525445903766, 1.5836976111951994e-05]]], dtype=torch.float64), 'bc': torch.tensor([[9.526526852494859e-05, 9.526526852494859e-05], [0.0002899889386382084, 0.0002899889386382084]], dtype=torch.float64)}, step=torch.tensor([5, 5], dtype=torch.long), active=torch.tensor([True, True], dtype=torch.bool), lr=0.01, betas=(0.9, 0.999), eps=1e-07),
    'attention_theory.trauger.sparse_majority.training.build_sweep_data': lambda: dict(config=SweepConfig(Ts=(12,), seeds=(3,), n_train=40, n_val=60, k=9, d=8, heads=2, batch_size=16, max_epochs=5, lr=0.001, betas=(0.9, 0.999), eps=1e-07, eval_every=5, patience=None, checkpoint_every=5, dtype='float64', val_chunk=25, shuffle_seed=12345)),
    'attention_theory.trauger.sparse_majority.training.evaluate': lambda: dict(params={'Wq': torch.from_numpy(unif((2, 8, 8), -0.643, 0.612)).requires_grad_(), 'bq': torch.tensor([[0.012555058262416435, -0.01135364514558608, -0.011829276193288992, -0.05060659010990044, -0.07223718566210963, -0.0599530653598669, -0.057603134952450924, 0.022045047922665616], [-0.002621129730781524, 0.11661714875067596, 0.000657245879530583, -0.05093766723650514, 0.07244045593236025, -0.06296973729224142, -0.05383569697319117, -0.07863270615669822]], dtype=torch.float64).requires_grad_(), 'Wk': torch.from_numpy(unif((2, 8, 8), -0.685, 0.686)).requires_grad_(), 'bk': torch.tensor([[3.9490741619516423e-13, -2.8300642376638747e-13, -2.7543309323420925e-13, 1.3440691674117208e-13, 9.289924302551774e-12, 4.893991328690553e-12, -6.013930735731064e-12, 2.4353722762836745e-12], [-4.077811514340356e-12, 1.916504333288876e-13, 2.6981404032601813e-13, 6.187472176045451e-12, 7.421876366039418e-13, 1.5535449843727933e-12, 7.411039255789631e-15, -2.7562253628978253e-14]], dtype=torch.float64).requires_grad_(), 'Wv': torch.from_numpy(unif((2, 8, 8), -0.653, 0.684)).requires_grad_(), 'bv': torch.tensor([[-0.10601964573549705, -0.08279458538519388, 0.009655676095403647, 0.030780354774493462, -0.017288261198109698, -0.003800983938387321, -0.0190365741583355, 0.028684684466463845], [0.021690295075047435, 0.009623079634544096, -0.008064154153694157, 0.035941041784479766, -0.033530625096277134, -0.029009219099844392, 0.03352794994301155, -0.006676041952421587]], dtype=torch.float64).requires_grad_(), 'Wo': torch.from_numpy(unif((2, 8, 8), -0.684, 0.647)).requires_grad_(), 'bo': torch.tensor([[0.02366470415764348, 0.018835536264335498, 0.021592266952645146, -0.018143392032454388, -0.021860084660169768, 0.010072516386618425, -0.01899736756798208, -0.020225784511929797], [-0.014081228989314019, -0.012780539692758075, 0.0191189037966342, -0.013646522273498506, 0.007423059186291617, -0.07337683281669212, -0.013336360330697825, 0.012983314859268676]], dtype=torch.float64).requires_grad_(), 'Wc': torch.tensor([[[-0.4854174983544132, 0.4962283316386286, -0.5479133438482535, 0.4194637760963333, 0.6678895084045698, -0.38209744543487134, 0.03968264485105231, 0.4205147781596804], [0.5685029424034983, 0.8354348231764708, 0.46566392544721225, -0.03187952318321857, -0.3847365924587296, -0.43110850922168154, -0.4557029293176079, -0.4417454541002992]], [[-0.36792735179304303, 0.7031112952335637, 0.5787034319151034, -0.36954158755857053, -0.021118886358972782, 0.4253748870193195, 0.7138995427830146, 0.6422483499611666], [0.5114296615273566, 0.5642005247713223, 0.2857367968125468, 0.607979444726882, -0.5316572450420645, 0.30418305320192407, 0.6411402690675101, -0.5444643209492177]]], dtype=torch.float64).requires_grad_(), 'bc': torch.tensor([[-0.021983796710274874, 0.021983796710274894], [0.010583558274681458, -0.01058355827468145]], dtype=torch.float64).requires_grad_()}, tokens=torch.from_numpy(ints((2, 40, 15), 0, 3)), labels=torch.from_numpy(ints((2, 40), 0, 1)), heads=2, chunk=30),
    'attention_theory.trauger.sparse_majority.training.train_batched': lambda: dict(config=SweepConfig(Ts=(12,), seeds=(3,), n_train=40, n_val=60, k=9, d=8, heads=2, batch_size=16, max_epochs=5, lr=0.001, betas=(0.9, 0.999), eps=1e-07, eval_every=5, patience=None, checkpoint_every=5, dtype='float64', val_chunk=25, shuffle_seed=12345), progress=False),
    'attention_theory.trauger.sparse_majority.training.train_naive': lambda: dict(config=SweepConfig(Ts=(12,), seeds=(3,), n_train=40, n_val=60, k=9, d=8, heads=2, batch_size=16, max_epochs=5, lr=0.001, betas=(0.9, 0.999), eps=1e-07, eval_every=5, patience=None, checkpoint_every=5, dtype='float64', val_chunk=25, shuffle_seed=12345), epochs=5),
    'attention_theory.trauger.word_masking.loss_class_mc': lambda: dict(K=2, m=16, T=4, n_draws=3, steps=30, seed=1),
    'attention_theory.trauger.word_masking.masked_logits': lambda: dict(W=np.array([[0.39491357636926416], [-1.4006068293399847]]), Y_tau=np.array([[-0.6010572947068684], [-0.67439598814563], [-2.1621953486685936], [-1.330267138891908], [-0.4609351181032886]])),
    'attention_theory.verify.contract.check_bound': lambda: dict(lhs=[1.0], rhs=[2.0], description='a declared part', check='toy-part'),
    'attention_theory.verify.contract.check_identity': lambda: dict(computed=[1.0000005], reference=[1.0], description='x', atol=1e-06, tolerance_reason='the right side comes from a Monte-Carlo estimate with standard error about 1e-4', claim_id='trauger-lemma-3-1', check='toy'),
    'attention_theory.verify.contract.check_interval': lambda: dict(value=-0.33, low=-1.0, high=-0.1, description='x', claim_id='trauger-lemma-3-1', check='toy', value_interval=(-0.47, -0.19)),
    'attention_theory.verify.contract.check_owner': lambda: dict(claim_id='trauger-lemma-3-2', check='other'),
    'attention_theory.verify.contract.claim_check': lambda: dict(claim_id='deora-eq-24', check='toy', parts=()),
    'attention_theory.verify.contract.confirm_erratum': lambda: dict(printed=Outcome(kind='identity', passed=False, n_instances=41, worst=152585257687.72034, worst_index=27, detail={'max_abs_error': 15.258525768772035, 'n_violations': 41, 'rtol': 0.0, 'atol': 1e-10, 'instances': 'ae24373b6a8526ad'}), corrected=Outcome(kind='identity', passed=True, n_instances=41, worst=6.217248937900877e-05, worst_index=27, detail={'max_abs_error': 6.217248937900877e-15, 'n_violations': 0, 'rtol': 0.0, 'atol': 1e-10, 'instances': 'ae24373b6a8526ad'}), description="App. C's scores X W_QK x_cls do not give the [CLS] row of the Sec. 2.6 head (non-symmetric W_QK); Sec. 4.1's X W_QK^T x_cls does", printed_text='App. C: softmax(X W_QK x_cls)', corrected_text='Sec. 4.1: softmax(X W_QK^T x_cls)', source='Trauger & Tewari, Sec. 4.1 vs App. C', kind='typo', where='proof', check='app-c-orientation', params={'printed_transpose': False}, seed=40),
    'attention_theory.verify.contract.evaluate': lambda: dict(check=check_fig4_more_heads_lower_loss, args=({'steps': 200, 'Hs': (1, 4), 'gd': {1: {'step': np.array([0, 100, 200], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.1, 0.2], [0.01, 0.02]])}, 4: {'step': np.array([0, 100, 200], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.05, 0.1], [0.005, 0.01]])}}, 'momentum': {1: {'step': np.array([0, 100, 200], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.03, 0.06], [0.003, 0.006]])}, 4: {'step': np.array([0, 100, 200], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.010000000000000002, 0.020000000000000004], [0.001, 0.002]])}}, 'adam': {1: {'step': np.array([0, 100, 200], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.04000000000000001, 0.08000000000000002], [0.004, 0.008]])}, 4: {'step': np.array([0, 100, 200], dtype=np.int64), 'train_loss': np.array([[0.7, 0.7], [0.020000000000000004, 0.04000000000000001], [0.002, 0.004]])}}},), kwargs={'larger_is_better': False}),
    'attention_theory.verify.contract.negative_control': lambda: dict(claim_id='trauger-lemma-3-1', check='no-such-check'),
    'attention_theory.verify.contract.not_checkable': lambda: dict(claim_id='deora-sec-2', reason='a meta-claim about proofs has no finite instance'),
    'attention_theory.verify.contract.registered_checks': lambda: dict(),
    'attention_theory.verify.outcomes.bound_outcome': lambda: dict(lhs=[0.25, 0.0625, 0.0625, 0.010000000000000002], rhs=[0.25, 0.1875, 0.1875, 0.09], atol=1e-12, instances=[0.5, 0.25, 0.75, 0.1]),
    'attention_theory.verify.outcomes.check_tolerances': lambda: dict(rtol=1e-09, atol=1e-12, tolerance_reason=None),
    'attention_theory.verify.outcomes.current_check': lambda: dict(),
    'attention_theory.verify.outcomes.identity_outcome': lambda: dict(computed=[1.0], reference=[1.0], atol=0.001, tolerance_reason='the right side comes from a Monte-Carlo estimate with standard error about 1e-4'),
    'attention_theory.verify.outcomes.instances_fingerprint': lambda: dict(instances=[0.5, 0.25, 0.75, 0.1]),
    'attention_theory.verify.outcomes.interval_outcome': lambda: dict(value=1.0, low=1.9, high=2.1),
    'attention_theory.verify.outcomes.running_check': lambda: dict(claim_id='trauger-lemma-3-1', check='greedy-constructive'),
    'attention_theory.verify.registry.claim_status': lambda: dict(records=[{'status': 'not-checkable', 'detail': {'reason': 'r'}}]),
    'attention_theory.verify.registry.current_source': lambda: dict(),
    'attention_theory.verify.registry.evaluate_only': lambda: dict(),
    'attention_theory.verify.registry.registry_dir': lambda: dict(),
    'attention_theory.verify.registry.summarize_registry': lambda: dict(records=[{'check': 'toy', 'claim_id': 'trauger-fig-3', 'commit': 'ced6c0c12e00', 'data': {'commits': ['abc123'], 'files': ['runs-full.json'], 'sha256': ['c13986ece0936408']}, 'date': '2026-11-24', 'description': 'trauger-fig-3 / toy: toy statement: FAILS on 1 instance(s); worst LHS/RHS = 1.5', 'detail': {'failure': 'trauger-fig-3 / toy: toy statement: FAILS on 1 instance(s); worst LHS/RHS = 1.5'}, 'device': 'cpu (x86_64, Linux)', 'kind': 'fails', 'n_instances': 0, 'package_version': '0.1.0', 'params': {}, 'scale': 'full', 'seed': None, 'status': 'fails', 'worst': None}, {'check': 'toy', 'claim_id': 'trauger-fig-3', 'commit': 'ced6c0c12e00', 'data': None, 'date': '2026-11-24', 'description': 'toy statement', 'detail': {'atol': 0.0, 'discrimination': 2.0, 'first_violation': None, 'lhs_at_worst': 1.0, 'n_violations': 0, 'rhs_at_worst': 2.0, 'rtol': 1e-09}, 'device': 'cpu (x86_64, Linux)', 'kind': 'bound', 'n_instances': 1, 'package_version': '0.1.0', 'params': {}, 'scale': 'smoke', 'seed': None, 'status': 'verified', 'worst': 0.5}]),
    'attention_theory.verify.registry.write_record': lambda: dict(rec=CheckRecord(claim_id='trauger-lemma-3-1', check='greedy-integer-form', description='approximant is (1/K) sum k_i V_i, sum k_i <= K', status='verified', kind='identity', n_instances=151, worst=0.0, params={}, seed=10, package_version='0.1.0', commit='ced6c0c12e00', device='cpu (x86_64, Linux)', date='2026-11-24', scale='smoke', detail={'max_abs_error': 0.0, 'n_violations': 0, 'rtol': 0.0, 'atol': 0.0}, data=None)),
    'attention_theory.verify.registry.weighs_on_statement': lambda: dict(record={'status': 'erratum', 'kind': 'erratum', 'detail': {'kind': 'typo', 'where': 'statement', 'version': 'review-copy'}}),
    'attention_theory.verify.contract.limit_sequence': lambda: dict(family='one token', parameter='R -> 0', values=[1.0, 0.1, 0.01], ratios=[0.5, 0.9, 0.999]),
    'attention_theory.verify.tightness.tightness_rows': lambda: dict(records=[{'claim_id': 'trauger-fig-3', 'check': 'toy', 'kind': 'bound', 'status': 'verified', 'worst': 0.25, 'scale': 'smoke', 'detail': {'families': ['random'], 'no_search': 'toy'}}], below=0.5),
    'attention_theory.verify.tightness.format_tightness': lambda: dict(rows=[{'claim_id': 'trauger-fig-3', 'check': 'toy', 'worst': 0.25, 'scale': 'smoke', 'worst_per_scale': {'smoke': 0.25}, 'weak': True, 'families': ['random'], 'limits': []}], below=0.5),
    'attention_theory.verify.rerun.claim_checks': lambda: dict(),
    'attention_theory.verify.rerun.main': lambda: dict(argv=['--list', '--paper', 'deora']),
    'attention_theory.verify.campaign.natural_key': lambda: dict(text='deora-prop-1'),
    'attention_theory.verify.campaign.needs_data': lambda: dict(fn=check_maurey_tightness),
    'attention_theory.verify.rerun.registered_records': lambda: dict(against='/tmp/pytest-of-root/pytest-144/test_rerun_prints_fresh_and_re0'),
}


EXCLUDED: dict[str, str] = {
}

# workers (Dask) and the campaign
EXAMPLES.update({
    "attention_theory.cluster.ClusterSpec": lambda: dict(workers=2, jobs=1),
    "attention_theory.cluster.open_client": lambda: dict(spec=ClusterSpec()),
    "attention_theory.cluster.counting_piece_cpu": lambda: dict(),
    "attention_theory.cluster.one_thread": lambda: dict(),
    "attention_theory.cluster.inside_dask_task": lambda: dict(),
    "attention_theory.verify.campaign.campaign_tasks": lambda: dict(claims=["qin-thm-2"]),
    "attention_theory.verify.campaign.completed_tasks": lambda: dict(folder="_build/no-such-registry", scale="smoke"),
    "attention_theory.verify.campaign.known_durations": lambda: dict(),
    "attention_theory.workers_benchmark.summarize_times": lambda: dict(times=[1.0, 2.0, 3.0]),
    "attention_theory.verify.campaign.predict_wall": lambda: dict(durations=[5.0, 3.0, 2.0], workers=2),
    "attention_theory.verify.campaign.trains_experiment": lambda: dict(fn=check_maurey_tightness),
    "attention_theory.verify.campaign.read_manifest": lambda: dict(folder="_build/no-such-registry"),
    "attention_theory.verify.campaign.registry_scale": lambda: dict(folder="_build/no-such-registry"),
    "attention_theory.verify.registry.record_filename": lambda: dict(claim_id="qin-thm-2", check="linear-rate",
                                                                     scale="smoke"),
    "attention_theory.verify.registry.staging_records": lambda: dict(),
})
EXCLUDED.update({
    "attention_theory.cluster.worker_count": "an argparse type converter: raises argparse.ArgumentTypeError "
        "by contract (tests/core/test_campaign.py)",
    "attention_theory.cluster.add_cluster_options": "adds options to an argparse parser (tests/core/test_campaign.py)",
    "attention_theory.cluster.cluster_spec": "reads parsed command-line options (tests/core/test_campaign.py)",
    "attention_theory.cluster.map_pieces": "its items are opaque to it: each is passed to fn, which validates it "
        "(tests/core/test_campaign.py)",
    "attention_theory.experiment.Shards": "a declaration of an experiment part (three functions)",
    "attention_theory.experiment.run_shards": "runs a part of an experiment from its RunContext "
        "(tests/core/test_experiment_shards.py)",
    "attention_theory.experiment.shard_dir": "takes a RunContext of the experiment CLI (tests/core/test_experiment_shards.py)",
    "attention_theory.trauger.sparse_majority.experiment.authors_shard": "trains one shard of the sweep from a "
        "RunContext (tests/core/test_experiment_shards.py)",
    "attention_theory.workers_benchmark.main": "the bench-workers command: runs whole smoke campaigns",
    "attention_theory.workers_benchmark.time_campaign": "runs a whole smoke campaign as a command (minutes)",
    "attention_theory.workers_benchmark.time_sweep": "runs a smoke sweep as a command (seconds)",
    "attention_theory.verify.campaign.CheckTask": "a declaration of a campaign task (built by campaign_tasks)",
    "attention_theory.verify.campaign.run_check_task": "runs registered checks: they take no user input "
        "(tests/core/test_campaign.py)",
    "attention_theory.verify.campaign.record_task_result": "writes into a registry folder what run_check_task "
        "returned (tests/core/test_campaign.py)",
    "attention_theory.verify.registry.write_record_file": "writes into a registry folder (tests/core/test_campaign.py)",
})

_V = "attention_theory.validation."
EXAMPLES.update({
    _V + "as_array": lambda: dict(x=unif((2, 3)), name="x", ndim=2),
    _V + "as_matrix": lambda: dict(x=unif((2, 3)), name="x"),
    _V + "as_vector": lambda: dict(x=unif((3,)), name="x"),
    _V + "as_tensor": lambda: dict(x=unif((3,)), name="x", shape=(3,)),
    _V + "check_int": lambda: dict(x=3, name="x"),
    _V + "check_order": lambda: dict(p=2.0, name="p"),
    _V + "check_positive": lambda: dict(x=0.5, name="x"),
    _V + "check_probability": lambda: dict(x=0.25, name="x"),
    _V + "check_rng": lambda: dict(rng=np.random.default_rng(0), name="rng"),
    _V + "check_seed": lambda: dict(seed=3, name="seed"),
    _V + "check_path": lambda: dict(path="results/x.json", name="path"),
})

ALLOWED: dict[str, dict[str, str]] = {
    _V + "check_order": {"p:inf": "allow_inf=True by default: inf is a norm order"},
    "attention_theory.foundations.norms.dual_exponent": {"p:inf": "the dual exponent of inf is 1"},
    "attention_theory.foundations.norms.operator_norm": {"p:inf": "the (inf, q) operator norm"},
    "attention_theory.foundations.norms.mixed_norm": {"p:inf": "the (q, inf) mixed norm"},
    "attention_theory.foundations.covering.greedy_packing_size": {"q:inf": "sup-norm packing"},
    "attention_theory.foundations.norms.vector_norm": {"x:wrong_rank": "any shape (axis=None: all entries)"},
    **{f"attention_theory.foundations.mirror.{n}": {f"{a}:wrong_rank": "entrywise: any shape"}
       for n, a in (("psi", "W"), ("grad_psi", "W"), ("grad_psi_inv", "U"), ("psi_conj", "U"))},
    "*": {
        "path:string": "a relative path is a valid path", "folder:string": "a relative path is a valid path",
        "seed:none": "numpy's convention: seed=None draws fresh entropy",
        "text:string": "any text", "reason:string": "any text", "description:string": "any text",
        "tolerance_reason:string": "any text",
    },
    "attention_theory.config.pick": {"smoke:*": "returns one of its two arguments unchanged, whatever "
                                     "they are", "full:*": "idem"},
    "attention_theory.config.cached_per_scale": {"maxsize:none": "functools.lru_cache: None is unbounded"},
    "attention_theory.verify.outcomes.running_check": {"check:string": "any check name"},
    "attention_theory.verify.registry.record_filename": {f"{a}:string": "any name: it is made safe for a file "
                                                         "name" for a in ("claim_id", "check", "scale")},
    "attention_theory.provenance.jsonable": {"x:*": "turns any object into JSON-able data (NaN -> None)"},
    "attention_theory.results.device_name": {"device:*": "describes any device object (str() of it)"},
    "attention_theory.results.atomic_write_json": {"obj:none": "null is JSON", "obj:string": "a JSON string"},
    "attention_theory.results.save_checkpoint": {"config:string": "any JSON-able config is fingerprinted"},
    "attention_theory.results.save_json_checkpoint": {"config:string": "any JSON-able config is "
                                                      "fingerprinted"},
    "attention_theory.verify.outcomes.bound_outcome": {
        "lhs:nan": "a NaN side makes the outcome fail (recorded), it does not raise",
        "rhs:inf": "an infinite bound holds trivially (recorded)",
        "lhs:wrong_rank": "an added axis of length 1 keeps the instances and their order",
        "rhs:wrong_rank": "an added axis of length 1 keeps the instances and their order",
        "instances:*": "only fingerprinted"},
    "attention_theory.verify.outcomes.identity_outcome": {
        "computed:nan": "a NaN makes the outcome fail (recorded)", "reference:nan": "idem",
        "computed:wrong_rank": "an added axis of length 1 keeps the instances and their order",
        "reference:wrong_rank": "an added axis of length 1 keeps the instances and their order"},
    "attention_theory.verify.outcomes.interval_outcome": {"value:nan": "a NaN makes the outcome fail"},
    "attention_theory.verify.outcomes.instances_fingerprint": {"instances:*": "fingerprints any object"},
    "attention_theory.foundations.tensors.f64": {"a:*": "documented as the unvalidated float64 conversion "
                                                 "of internal numerics (NaN/inf pass through by design)"},
}

# julistiono/qin/search (the mutations below are documented valid input)
_JM = "attention_theory.julistiono.model."
_BATCH = "an extra leading batch axis (julistiono.model: every argument takes leading batch axes)"
ALLOWED.update({
    **{_JM + f: {f"{a}:wrong_rank": _BATCH for a in args} for f, args in (
        ("scores", ("Y", "v")), ("attention_output", ("v",)), ("margins", ("Y", "v")),
        ("objective", ("Y", "v")), ("gradient_W", ("Y", "v")), ("make_gradient", ("Y", "v")),
        ("loss_value", ("u",)), ("loss_derivative", ("u",)))},
    "attention_theory.julistiono.mirror_descent.normalize_dual":
        {"G:wrong_rank": "normalized over every axis after batch_dims: any shape"},
    "attention_theory.julistiono.mirror_descent_training.sparsity": {"w:wrong_rank": "entrywise: any shape"},
    **{f"attention_theory.qin.model.{f}": {"x:wrong_rank": "elementwise: any shape"}
       for f in ("activation", "activation_prime", "activation_second")},
    "attention_theory.search.maximize_over_sizes": {
        "sizes:wrong_rank": "sizes are opaque to the search (ints, tuples, lists, labels): a list is a size",
        "sizes:negative": "sizes are opaque: only objective/init know their valid range (they raise)",
        "sizes:inf": "a size may hold a norm order, and inf is one (the linear-covering checks use it)"},
})

NOT_FUZZED_ARGS: dict[str, tuple[str, ...]] = {
    # the validation helpers: `name` is the label their messages use, the rest are options of
    # the caller (not user input)
    _V + "as_array": ("name", "ndim", "finite"),
    _V + "as_matrix": ("name", "finite"),
    _V + "as_vector": ("name", "finite"),
    _V + "as_tensor": ("name", "ndim", "shape"),
    _V + "check_int": ("name", "minimum"),
    _V + "check_order": ("name", "minimum", "allow_inf", "strict"),
    _V + "check_positive": ("name", "allow_zero"),
    _V + "check_probability": ("name", "open_interval"),
    _V + "check_rng": ("name",),
    _V + "check_seed": ("name",),
    _V + "check_path": ("name",),
}

# trauger (the mutations below are documented valid input)
_TSM = "attention_theory.trauger.single_layer_model."
ALLOWED.update({
    _TSM + "into_l1_ball": {"Z:wrong_rank": "acts on the last axis of a tensor of any shape (..., n)"},
    _TSM + "outer_sup_identity": {"eps:wrong_rank": "batched: eps has shape (..., m) (leading batch axes)"},
    _TSM + "project_l1_ball": {"v:wrong_rank": "any shape (flattened, projected, reshaped back)"},
    "attention_theory.trauger.sparse_majority.authors_model.unflatten":
        {"flat:wrong_rank": "flat has shape (*B, P): leading run axes are valid"},
    "attention_theory.trauger.sparse_majority.protocol.ProtocolConfig":
        {"name:string": "a free-form label of the protocol (recorded in the provenance)"},
})
NOT_FUZZED_ARGS.update({
    # as for validation.as_tensor: `name` is the label its messages use, `ndim` the caller's option
    _TSM + "as_t": ("name", "ndim"),
    # a bool mask: the suite's "negative" mutation of a bool tensor raises inside the suite (numpy
    # has no boolean negative); its dtype and shape checks are unit-tested in tests/trauger
    "attention_theory.trauger.sparse_majority.training.adam_step": ("active",),
})

# deora model/training/head_sweeps/sst2 (the mutations below are documented valid input)
_DM = "attention_theory.deora.model."
ALLOWED.update({
    _DM + "split_heads": {"thetas:wrong_rank": "batched: thetas has shape (..., H (T d + d^2)), a[None] "
                          "is a batch of one"},
    _DM + "softmax_jacobian_t": {"v:wrong_rank": "v has shape (..., T): any leading axes"},
    "attention_theory.deora.sst2.missing_assets": {
        "model:string": "any model id or folder (one that is not found is reported in the list)",
        "data:string": "any folder (one without the TSV files is reported in the list)"},
    "attention_theory.deora.sst2.write_fixture": {"root:string": "a relative path is a valid folder"},
})

# deora stability/dm1_search (the mutations below are documented valid input)
_DST = "attention_theory.deora.stability."
_BROADCAST = "elementwise with numpy/torch broadcasting (callers pass scalars and arrays of several shapes)"
ALLOWED.update({
    "attention_theory.deora.dm1_search.bound_ratio": {
        "lhs:wrong_rank": "a one-element side of any shape is a number (dm1_search passes (1,)-shaped norms)"},
    _DST + "expansion_factor": {f"{a}:wrong_rank": _BROADCAST for a in ("beta3", "beta2", "L")},
    _DST + "rho_vec": {f"{a}:wrong_rank": _BROADCAST for a in ("D", "B", "T", "d", "R", "H")},
    _DST + "require": {"what:string": "any text (the hypothesis named in the error message)"},
})


# ------------------------------------------------------------------ written by hand

def quadratic_loss(theta: torch.Tensor) -> torch.Tensor:
    """A smooth, non-convex loss of a flat parameter vector (for the Hessian/GD helpers)."""
    return (theta ** 2).sum() + 0.5 * theta.prod() + torch.sin(theta).sum()


def sphere_objective(x: np.ndarray) -> float:
    """A concave objective for the search helpers (maximum 0 at the origin)."""
    return -float(np.sum(np.asarray(x) ** 2))


def sized_objective(size: int, x: np.ndarray) -> float:
    return -float(np.sum(np.asarray(x) ** 2)) + size


def _numpy_objective(f: Callable[[Any, np.ndarray], float]) -> Any:
    from attention_theory.search import numpy_objective

    return numpy_objective(f)


def gaussian_init(rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(2)


def sized_init(size: int, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(size)


def scalar_cover(column: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(column) * 4) / 4


def trauger_layer(seed: int = 0, d: int = 3, k: int = 2) -> Any:
    from attention_theory.trauger.model import random_layer

    return random_layer(np.random.default_rng(seed), d, k)


def _tmp() -> Path:
    """A fresh temporary folder (removed when the interpreter exits)."""
    folder = Path(tempfile.mkdtemp(prefix="attn-fuzz-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _prov() -> dict[str, Any]:
    from attention_theory.results import provenance

    return provenance({"n": 1}, wall_time_s=0.0)


def _written(fn_name: str, payload: Any) -> Path:
    """A temporary file written by ``attention_theory.results.<fn_name>``."""
    from attention_theory import results

    path = _tmp() / ("f.json" if "json" in fn_name or fn_name == "write_result" else "f.pt")
    if fn_name == "write_result":
        results.write_result(path, payload, _prov())
    else:
        getattr(results, fn_name)(path, payload)
    return path


EXAMPLES.update({
    # foundations
    "attention_theory.foundations.covering.greedy_packing_size":
        lambda: dict(F=unif((4, 3)), eps=0.5, q=2.0),
    "attention_theory.foundations.gd.loss_and_grad":
        lambda: dict(loss=quadratic_loss, theta=torch.tensor([0.3, -0.2, 0.1], dtype=torch.float64)),
    "attention_theory.foundations.gd.run_first_order":
        lambda: dict(loss=quadratic_loss, theta0=torch.tensor([0.3, -0.2, 0.1], dtype=torch.float64),
                     steps=3, lr=0.1),
    **{f"attention_theory.foundations.hessian.{n}":
       (lambda: dict(loss=quadratic_loss, theta=torch.tensor([0.3, -0.2, 0.1], dtype=torch.float64)))
       for n in ("exact_hessian", "hessian_operator", "hvp_function", "lambda_min", "spectral_norm")},
    "attention_theory.foundations.hessian.lanczos_extreme":
        lambda: dict(loss=quadratic_loss, theta=torch.from_numpy(unif((12,))), tol=1e-8, starts=1, seed=0),
    "attention_theory.foundations.maurey.cover_rows": lambda: dict(W=unif((3, 4)), scalar_cover=scalar_cover),
    "attention_theory.foundations.norms.head_max_norm": lambda: dict(theta=unif((8,)), H=2),
    "attention_theory.foundations.norms.mixed_norm": lambda: dict(W=unif((3, 4)), q=2.0, p=1.0),
    "attention_theory.foundations.softmax.softmax_second_derivative":
        lambda: dict(v=unif((4,)), delta=unif((4,), seed=1)),
    "attention_theory.foundations.tensors.default_dtype": lambda: dict(dtype=torch.float64),
    # core
    "attention_theory.search.maximize":
        lambda: dict(objective=sphere_objective, init=gaussian_init, restarts=2, steps=5,
                     method="nelder-mead", seed=0),
    "attention_theory.search.maximize_over_sizes":
        lambda: dict(objective=_numpy_objective(sized_objective), init=sized_init, sizes=[1, 2], methods=("lbfgs", "nelder-mead"),
                     restarts=1, steps=5, seed=0),
    "attention_theory.search.numpy_objective": lambda: dict(f=sized_objective, rel_step=1e-6),
    "attention_theory.experiment.nonnegative_int": lambda: dict(text="3"),
    "attention_theory.experiment.positive_float": lambda: dict(text="0.5"),
    "attention_theory.results.atomic_write_bytes": lambda: dict(path=_tmp() / "a.bin", data=b"abc"),
    "attention_theory.results.atomic_write_json": lambda: dict(path=_tmp() / "a.json", obj={"a": 1.5}),
    "attention_theory.results.atomic_write_text": lambda: dict(path=_tmp() / "a.txt", text="abc"),
    "attention_theory.results.write_result":
        lambda: dict(path=_tmp() / "r.json", data={"x": [1.0, 2.0]}, prov=_prov()),
    "attention_theory.results.read_result": lambda: dict(path=_written("write_result", {"x": [1.0]})),
    "attention_theory.results.save_json_checkpoint":
        lambda: dict(path=_tmp() / "c.json", payload={"step": 3}, config={"lr": 0.1}),
    "attention_theory.results.load_json_checkpoint":
        lambda: dict(path=_written("save_json_checkpoint", {"step": 3})),
    "attention_theory.results.save_checkpoint":
        lambda: dict(path=_tmp() / "c.pt", state={"w": torch.zeros(2)}, config={"lr": 0.1}),
    "attention_theory.results.load_checkpoint":
        lambda: dict(path=_written("save_checkpoint", {"w": torch.zeros(2)})),
    "attention_theory.results.clean_temporary_files": lambda: dict(folder=_tmp(), older_than_s=600.0),
    "attention_theory.papers.paper": lambda: dict(key="trauger"),
    "attention_theory.verify.registry.load_registry": lambda: dict(folder=_tmp()),
    "attention_theory.verify.registry.recording_to": lambda: dict(folder=_tmp()),
    # trauger
    "attention_theory.trauger.model.Layer":
        lambda: dict(W_QK=torch.eye(3, dtype=torch.float64), W_v=torch.ones(3, 2, dtype=torch.float64),
                     W_c=torch.ones(2, 3, dtype=torch.float64)),
    "attention_theory.trauger.model.attention_head":
        lambda: dict(params=trauger_layer(), X=torch.from_numpy(unif((4, 3)))),
    "attention_theory.trauger.model.block":
        lambda: dict(layers=[trauger_layer(0), trauger_layer(1)], X=torch.from_numpy(unif((4, 3)))),
    "attention_theory.trauger.model.block_layer":
        lambda: dict(params=trauger_layer(), Z=torch.from_numpy(unif((4, 3)))),
    "attention_theory.trauger.model.layer_f":
        lambda: dict(params=trauger_layer(), Z=torch.from_numpy(unif((4, 3)))),
    "attention_theory.trauger.model.multi_head_layer":
        lambda: dict(heads=[trauger_layer(0), trauger_layer(1)], X=torch.from_numpy(unif((4, 3)))),
    "attention_theory.trauger.model.qk_from_factors":
        lambda: dict(W_Q=torch.from_numpy(unif((3, 2))), W_K=torch.from_numpy(unif((3, 2), seed=1))),
    "attention_theory.trauger.model.row_softmax": lambda: dict(S=torch.from_numpy(unif((3, 4)))),
    "attention_theory.trauger.model.scalar_output":
        lambda: dict(layers=[trauger_layer()], w=torch.from_numpy(unif((3,))),
                     X=torch.from_numpy(unif((4, 3))), cls_index=0),
    "attention_theory.trauger.multi_layer.composite_cover":
        lambda: dict(layers=[trauger_layer()], w=unif((3,)), B=1.0,
                     eps_alloc={"qk": 0.5, "v": 0.5, "c": 0.5, "w": 0.5},
                     radius={"qk": 1.0, "v": 1.0, "c": 1.0, "w": 1.0}),
    "attention_theory.trauger.multi_layer.lemma_e2_terms":
        lambda: dict(p=trauger_layer(0), ph=trauger_layer(1), Z=torch.from_numpy(unif((4, 3))),
                     Zh=torch.from_numpy(unif((4, 3), seed=1))),
    "attention_theory.trauger.multi_layer.unrolled_terms":
        lambda: dict(layers=[trauger_layer(0)], layers_h=[trauger_layer(1)],
                     w=torch.from_numpy(unif((3,))), w_h=torch.from_numpy(unif((3,), seed=1)),
                     Xs=[torch.from_numpy(unif((4, 3)))]),
    "attention_theory.trauger.multi_layer_bounds.cor421_constants": lambda: dict(d=4, k=2, B=1.0, Bx=1.0),
    "attention_theory.trauger.multi_layer_bounds.cor421_order_corrected":
        lambda: dict(d=4, k=2, B=1.0, Bx=1.0, B_w=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=1.0),
    "attention_theory.trauger.multi_layer_bounds.cor421_printed_constant":
        lambda: dict(d=4, k=2, B=1.0, Bx=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=1.0, B_w=1.0),
    "attention_theory.trauger.multi_layer_bounds.log_cover_thm42":
        lambda: dict(eps=0.1, C1=1.0, CBx=1.0, L=2, L_sigma=1.0, B_c2=1.0, B_v2=1.0, B_qk2=1.0, B_w=1.0),
    "attention_theory.trauger.single_layer.fitted_rise": lambda: dict(T=[2, 4, 8, 16], y=[0.1, 0.12, 0.15, 0.16]),
    "attention_theory.trauger.word_masking.printed_masked_loss":
        lambda: dict(x=unif((5,)), y=ints((5,), 0, 1).astype(float)),
})

EXCLUDED.update({
    # plain records: dataclasses/named tuples the package returns, with no input of their own
    **{f"attention_theory.{n}": "plain result record (returned by the package, not user input)" for n in (
        "foundations.dudley.DudleyResult", "foundations.gd.Trajectory", "foundations.trend.ExponentEstimate",
        "foundations.trend.TrendEstimate", "search.SearchResult", "search.SizedSearch",
        "deora.max_margin.MaxMarginResult", "deora.stability.LOORuns", "deora.stability.StepData",
        "deora.dm1.DM1Sample", "julistiono.mirror_descent.JointTrajectory",
        "julistiono.mirror_descent.MDTrajectory", "julistiono.svm.AttSVMSolution",
        "qin.bounds.BallConstants", "qin.bounds.Bounded", "verify.outcomes.Outcome",
        "verify.registry.CheckRecord", "experiment.PartResult", "experiment.RunContext",
        "trauger.sparse_majority.authors_model.AuthorsRun", "trauger.sparse_majority.data.SparseMajority",
        "trauger.sparse_majority.training.SweepData", "papers.Paper", "experiment.Part",
        "experiment.Experiment", "deora.dm1_search.DM1Size")},
    # record writers: take no input, write a registry record (covered by the registry tests)
    **{f"attention_theory.{n}": "writes a registry record, takes no input (covered by the contract tests)"
       for n in ("deora.checks.sst2.record_sst2_not_checkable",
                 "trauger.checks.linear_covering.record_l35_general",
                 "trauger.checks.linear_covering.record_sec34_comparison",
                 "trauger.checks.multi_layer.record_sec43_trade",
                 "trauger.checks.single_layer.record_cord02_constant",
                 "trauger.checks.word_masking.record_foster_rakhlin")},
    # long runs: a whole smoke experiment (seconds to minutes); their inputs are scale/config
    # objects validated by the experiment CLI (tests/core/test_experiment_cli.py)
    **{f"attention_theory.{n}": "runs a whole (smoke) experiment: seconds to minutes per call" for n in (
        "deora.experiment_runs.smoke_dm1_runs", "deora.experiment_runs.smoke_dm2_runs",
        "deora.stability.monte_carlo", "deora.head_sweeps.run_figure", "deora.sst2_substitute.run_substitute",
        "deora.sst2.run_sst2", "deora.sst2_reports.smoke_substitute", "deora.training.cached_runs",
        "deora.stability.certified_runs", "deora.stability.practical_runs",
        "julistiono.mirror_descent_training.run_e1", "julistiono.mirror_descent_training.run_e2",
        "julistiono.mirror_descent_training.run_e3_standin",
        "julistiono.mirror_descent_training.run_e4_standin",
        "trauger.sparse_majority.experiment.run_authors_sweep", "trauger.sparse_majority.experiment.run_sweep",
        "trauger.sparse_majority.experiment.run_structured_benchmark",
        "trauger.sparse_majority.benchmark.benchmark_trainers", "experiment.run_cli",
        "verify.rerun.main", "verify.campaign.run_campaign")},
    # need assets that are not in the repository (downloads) or the optional `[sst2]` extra
    **{f"attention_theory.{n}": "needs downloaded data/model assets (not in the repository)" for n in (
        "deora.sst2.build_model", "deora.sst2.evaluate", "deora.sst2.finetune", "deora.sst2.load_tokenizer",
        "deora.sst2.load_sst2", "julistiono.real_data.load_cifar100", "julistiono.real_data.load_imdb")},
    # matplotlib drawing: takes an Axes and draws; data validation is that of the functions it plots
    **{f"attention_theory.{n}": "draws on a matplotlib Axes (no numerical result to check)" for n in (
        "deora.figures.plot_sweep", "trauger.sparse_majority.figures.plot_bound",
        "trauger.sparse_majority.figures.plot_curves", "trauger.sparse_majority.figures.plot_per_seed",
        "trauger.sparse_majority.figures.plot_interval_by_seeds")},
    # the verify API's assertions only work inside a registered check (ContractError outside it);
    # their argument validation is tested in tests/core/test_verify_api.py
    **{f"attention_theory.verify.contract.{n}": "an assertion of the verify API: only callable inside a "
       "registered check (tests/core/test_verify_api.py)" for n in (
        "check_bound", "check_identity", "check_interval", "confirm_erratum", "evaluate", "check_owner")},
    **{f"attention_theory.experiment.{n}": "an argparse type converter: raises argparse.ArgumentTypeError "
       "by contract (tests/core/test_experiment_cli.py)" for n in ("positive_int", "nonnegative_int",
                                                                    "positive_float")},
    "attention_theory.trauger.multi_layer.composite_cover": "its resolutions are keyed by matrix names of "
        "every layer (W_QK^(1), ...); exercised with valid input by check_thm42_composite_cover",
    "attention_theory.verify.contract.negative_control": "a context manager for tests: expects a failing "
        "registered check inside its block (tests/core/test_contract.py)",
    "attention_theory.verify.tightness.main": "a command line over registry folders; its arguments are "
        "validated by argparse (tests/core/test_tightness.py)",
    "attention_theory.verify.rerun.registered_records": "reads the registry folder of a previous run "
        "(tests/core/test_check_cli.py)",
    "attention_theory.deora.sentiment_encoder.parameter_count": "takes a built torch.nn.Module "
        "(build_encoder is fuzzed)",
    "attention_theory.verify.registry.write_record": "writes into the check registry of the session "
        "(tests/core/test_verify_api.py)",
    "attention_theory.deora.sentiment_encoder.SentimentEncoder": "a torch.nn.Module (build_encoder is fuzzed)",
    "attention_theory.trauger.sparse_majority.structured.StructuredTrainer":
        "a trainer object over a ProtocolConfig (train_structured is fuzzed)",
    "attention_theory.trauger.sparse_majority.authors_model.TextbookModel":
        "a torch.nn.Module over a ModelShape (its forward is checked by check_forward_matches_mha)",
})

for _name in EXCLUDED:  # an exclusion wins over an example taken from the unit tests' calls
    EXAMPLES.pop(_name, None)


def _deora_loss(theta: torch.Tensor) -> torch.Tensor:
    """The Deora risk of a flat parameter vector on a tiny fixed data set (H=2 heads, T=3, d=2)."""
    from attention_theory.deora import landscape

    rng = np.random.default_rng(0)
    Xs = rng.uniform(-1, 1, size=(4, 3, 2))
    y = np.array([1.0, -1.0, 1.0, -1.0])
    return landscape.risk_fn(Xs, y, H=2)(theta)


def _seg_values(t: np.ndarray) -> np.ndarray:
    return -(np.asarray(t) - 0.3) ** 2


def _md_params() -> list[torch.Tensor]:
    return [torch.nn.Parameter(torch.tensor([[0.5, -0.2], [0.1, 0.3]], dtype=torch.float64))]


def _with_grad(params: list[torch.Tensor]) -> list[torch.Tensor]:
    for p in params:
        p.grad = torch.ones_like(p)
    return params


EXAMPLES.update({
    "attention_theory.deora.bounds.heads_main_text_order": lambda: dict(D=1.0, B=1.0, T=4, d=2, R=1.0),
    "attention_theory.deora.bounds.rho_main_text_order": lambda: dict(D=1.0, B=1.0, T=4, d=2, R=1.0),
    "attention_theory.deora.bounds.prop1_rhs": lambda: dict(X=unif((3, 2)), U=unif((3, 2), seed=1)),
    "attention_theory.deora.dm1.DM1Config": lambda: dict(T=8, d=9, M=3, S=1.5, zeta=0.25),
    "attention_theory.deora.dm2.Teacher": lambda: dict(W=unif((2, 2)), U=unif((3, 2), seed=1)),
    "attention_theory.deora.heads_training.TrainSpec": lambda: dict(optimizer="gd", steps=3, lr_U=0.1, lr_W=0.1),
    "attention_theory.deora.head_sweeps.full_scale_files": lambda: dict(kind="dm1"),
    "attention_theory.deora.initialization.prop7_scan": lambda: dict(Hs=[1, 2]),
    "attention_theory.deora.landscape.segment_max": lambda: dict(values_at=_seg_values, grid=11),
    "attention_theory.deora.lexicon_sentiment.Lexicon":
        lambda: dict(positive=("good",), negative=("bad",), tenths={"good": 19, "bad": -25}, min_valence=1.0),
    "attention_theory.deora.lexicon_sentiment.WordVocab": lambda: dict(words=["good", "bad", "film"]),
    "attention_theory.deora.mixture_bounds.lemma15_heads":
        lambda: dict(T=8, R=1.0, S=1.5, P=1.0, gamma=0.5, n=10, delta=0.1),
    "attention_theory.deora.mixture_bounds.prop2_B2": lambda: dict(T=8, S=1.5, P=1.0),
    "attention_theory.deora.model.last_token_U": lambda: dict(u=unif((2,)), T=3),
    "attention_theory.deora.model.pooling_U": lambda: dict(u=unif((2,)), T=3),
    "attention_theory.deora.model.single_head_last_token":
        lambda: dict(X=torch.from_numpy(unif((3, 2))), W=torch.from_numpy(unif((2, 2), seed=1)),
                     u=torch.from_numpy(unif((2,), seed=2))),
    "attention_theory.deora.model.single_head_pooling":
        lambda: dict(X=torch.from_numpy(unif((3, 2))), W=torch.from_numpy(unif((2, 2), seed=1)),
                     u=torch.from_numpy(unif((2,), seed=2))),
    "attention_theory.deora.model.multi_head_output_flat":
        lambda: dict(thetas=torch.from_numpy(unif((2, 2 * (4 + 6)))), Xs=torch.from_numpy(unif((4, 3, 2))), H=2),
    "attention_theory.deora.landscape.loss_and_grad":
        lambda: dict(loss=_deora_loss, th=torch.from_numpy(unif((2 * (4 + 6),)))),
    "attention_theory.deora.training.certified_step":
        lambda: dict(loss=_deora_loss, theta=torch.from_numpy(unif((2 * (4 + 6),))), H=2, T=3, d=2, R=1.0),
    "attention_theory.deora.training.gd_run":
        lambda: dict(loss=_deora_loss, theta0=torch.from_numpy(unif((2 * (4 + 6),))), H=2, T=3, d=2, R=1.0,
                     steps=2, eta=0.1),
    "attention_theory.deora.training.paper_smoothness":
        lambda: dict(loss=_deora_loss, th_k=torch.from_numpy(unif((20,))), th_next=torch.from_numpy(unif((20,), seed=1)),
                     H=2, T=3, d=2, R=1.0),
    "attention_theory.deora.training.segment_loss_max":
        lambda: dict(loss_batch=lambda ths: torch.stack([_deora_loss(t) for t in ths]),
                     a=torch.from_numpy(unif((20,))), b=torch.from_numpy(unif((20,), seed=1)), grid=5),
    "attention_theory.experiment.ensure_writable": lambda: dict(folder=_tmp()),
    "attention_theory.experiment.move_checkpoints_aside": lambda: dict(folder=_tmp()),
    "attention_theory.julistiono.mirror_descent_training.sparsity": lambda: dict(w=unif((5,)), rel=0.01),
    "attention_theory.julistiono.mirror_descent.torch_md_step_":
        lambda: dict(params=_with_grad(_md_params()), p=3.0, lr=0.1),
    "attention_theory.julistiono.model.margins":
        lambda: dict(W=unif((3, 3)), X=unif((4, 5, 3), seed=1), z=unif((4, 3), seed=2),
                     Y=np.array([1.0, -1.0, 1.0, -1.0]), v=unif((3,), seed=3)),
    "attention_theory.papers.claim_id_pattern": lambda: dict(),
    "attention_theory.qin.model.Dims": lambda: dict(d=4, dk=2, dv=3, m=5),
    "attention_theory.qin.model.QinConfig": lambda: dict(n_seq=1, rho1=1, rho2=1, gamma=0.2, b=4.0),
    "attention_theory.trauger.sparse_majority.authors_model.ModelShape":
        lambda: dict(d=8, heads=2, key_dim=4, value_dim=4, dense_units=4, n_classes=2),
    "attention_theory.trauger.sparse_majority.authors_model.authors_positional_encoding": lambda: dict(length=5, d=8),
    "attention_theory.trauger.sparse_majority.model.init_params": lambda: dict(d=8, seed=0),
    "attention_theory.trauger.sparse_majority.evaluation.equivalence_decision":
        lambda: dict(low=-0.01, high=0.015, margin=0.02),
    "attention_theory.trauger.sparse_majority.collect.write_weights":
        lambda: dict(path=_tmp() / "w.npz", weights={"a": unif((2, 2))}),
    "attention_theory.trauger.sparse_majority.figures.per_seed":
        lambda: dict(runs=[{"T": 20, "seed": 0, "gap": 0.1}, {"T": 40, "seed": 0, "gap": 0.2}], key="gap"),
    "attention_theory.trauger.sparse_majority.protocol.ProtocolConfig":
        lambda: dict(name="authors", Ts=(20, 40), seeds=(0,), n_train=30, n_val=50, k=3, d=8),
    "attention_theory.trauger.sparse_majority.training.SweepConfig":
        lambda: dict(Ts=(20, 40), seeds=(0,), n_train=30, n_val=50, k=3, d=8, heads=2, batch_size=8),
    "attention_theory.deora.sst2.results_dir": lambda: dict(),
    "attention_theory.trauger.sparse_majority.experiment.results_dir": lambda: dict(),
})

EXCLUDED.update({
    "attention_theory.deora.dm1_search.dm1_search": "a restart search over DM1 sizes (seconds); its objective "
        "parts come from dm1_instance, which is fuzzed",
    "attention_theory.deora.experiment_runs.adjacent_in_H": "reads the run dictionaries of a whole smoke "
        "experiment (smoke_dm1_runs, excluded as slow)",
    "attention_theory.deora.experiment_runs.dm1_runs_from_results": "reads saved full-scale result files",
    "attention_theory.deora.experiment_runs.dm2_runs_from_results": "reads saved full-scale result files",
    "attention_theory.deora.experiment_runs.format_report": "formats rows of a whole smoke experiment",
    "attention_theory.deora.experiment_runs.ordering_violations": "reads the run dictionaries of a whole "
        "smoke experiment",
    "attention_theory.deora.experiment_runs.value_at": "reads one run dictionary of a whole smoke experiment",
    "attention_theory.deora.heads_training.dm2_sweep": "trains one model per H (a smoke experiment)",
    "attention_theory.deora.lexicon_sentiment.label_tokens": "needs the VADER lexicon of the optional "
        "vaderSentiment wheel",
    "attention_theory.deora.sst2.read_glue_tsv": "reads a GLUE file (tested on the fixture in test_deora_sst2)",
    "attention_theory.deora.sst2_substitute.train_substitute": "trains a Transformer (seconds; test_deora_sst2)",
    "attention_theory.julistiono.real_data.load_vocab": "reads a downloaded vocabulary file",
    "attention_theory.julistiono.svm.support_tokens": "takes an AttSVMSolution returned by lp_att_svm "
        "(fuzzed)",
    "attention_theory.qin.model.attention_output_singular_values": "takes the params of init_params "
        "(fuzzed through forward)",
    "attention_theory.trauger.sparse_majority.authors_model.init_authors_params": "takes a ModelShape and a "
        "torch.Generator (ModelShape is fuzzed)",
    "attention_theory.trauger.sparse_majority.collect.collect_authors_sweep": "reads the checkpoints of a "
        "full-scale sweep",
    "attention_theory.trauger.sparse_majority.collect.read_weights": "reads a file written by write_weights",
    "attention_theory.trauger.sparse_majority.collect.merge_authors_sweeps": "merges whole collected sweeps "
        "(tested on the committed sweep cut into batches of seeds, test_sparse_majority_collect)",
    "attention_theory.trauger.sparse_majority.collect.read_authors_sweeps": "reads the committed sweep and "
        "its seed batches",
    "attention_theory.trauger.sparse_majority.evaluation.slopes_by_seed_count": "reads the run records of a "
        "sweep (doubling_slope on subsets of its seeds; test_sparse_majority_evaluation)",
    "attention_theory.trauger.sparse_majority.evaluation.doubling_slope": "reads the run records of a sweep "
        "(its statistics are those of foundations.trend, fuzzed)",
    "attention_theory.verify.registry.on_results": "a context manager over result files of a full run",
})


# ------------------------------------------------------------------- NaN entries by design

def _nan_exactly_at_alpha(table: np.ndarray, alpha: Any, what: str) -> np.ndarray:
    """Assert that ``table`` (n, T) is NaN at ``(i, alpha_i)`` and nowhere else; return the other
    entries (which the oracle then requires to be finite)."""
    table = np.asarray(table)
    a = np.asarray(alpha, dtype=np.int64)
    at_alpha = np.zeros(table.shape, dtype=bool)
    at_alpha[np.arange(table.shape[0]), a] = True
    assert np.isnan(table[at_alpha]).all(), f"{what} is not NaN at t = alpha_i"
    return table[~at_alpha]


#: Functions that document NaN entries in their result as a marker: {"module.function":
#: (finite_part(result, kwargs) -> the rest of the result, reason)}. ``finite_part`` asserts that the
#: documented entries are NaN exactly where the documentation says; the rest must be finite.
NAN_BY_DESIGN: dict[str, tuple[Callable[[Any, dict[str, Any]], Any], str]] = {
    "attention_theory.julistiono.svm.svm_slacks": (
        lambda out, kw: _nan_exactly_at_alpha(out, kw["alpha"], "svm_slacks"),
        "the slack of the selected token t = alpha_i is undefined and documented as NaN "
        "(support_tokens and cone_constants rely on it)"),
    "attention_theory.julistiono.svm.lp_att_svm": (
        lambda out, kw: (out.W, out.norm,
                         _nan_exactly_at_alpha(out.margins, kw["alpha"], "margins"),
                         _nan_exactly_at_alpha(out.duals, kw["alpha"], "duals")),
        "margins and duals of the selected token t = alpha_i are undefined and documented as NaN"),
}


_UNLOGGED = ("attn_score", "align_W", "align_U")


def _drop_unlogged(obj: Any) -> Any:
    """A head-sweep log (or a nest of them) without the quantities that were not logged: an entry
    of :data:`_UNLOGGED` that is NaN *everywhere* is the documented "not computed" marker (no
    relevant tokens, no teacher); a partly NaN one stays, and fails the oracle."""
    if isinstance(obj, dict):
        return {k: _drop_unlogged(v) for k, v in obj.items()
                if not (k in _UNLOGGED and np.isnan(np.asarray(v, dtype=float)).all())}
    return obj


NAN_BY_DESIGN.update({
    "attention_theory.deora.heads_training.train_heads": (
        lambda out, kw: _drop_unlogged(out),
        "attn_score without relevant tokens and align_W/align_U without a teacher are not computed "
        "and logged as NaN (the committed result files hold them as \"nan\")"),
    "attention_theory.deora.head_sweeps.load_figure": (
        lambda out, kw: _drop_unlogged(out),
        "a result file holds the quantities that were not logged as NaN (see train_heads)"),
})


EXAMPLES.update({
    _V + "check_bool": lambda: dict(x=True, name="x"),
    _V + "check_real": lambda: dict(x=-0.5, name="x"),
    _V + "check_callable": lambda: dict(f=len, name="f"),
    _V + "reject_complex": lambda: dict(x=unif((3,)), name="x"),
})
NOT_FUZZED_ARGS.update({_V + n: ("name",) for n in ("check_bool", "check_real", "check_callable", "reject_complex")})
EXAMPLES.update({
    _V + "real_values": lambda: dict(x=unif((3,)), name="x"),
    _V + "check_finite": lambda: dict(x=unif((3,)), name="x"),
    _V + "check_mapping": lambda: dict(x={"a": 1}, name="x", keys=("a",)),
    _V + "config_dict": lambda: dict(cfg={"a": 1}, default=None, keys=("a",)),
})
NOT_FUZZED_ARGS.update({_V + "real_values": ("name", "what"), _V + "check_finite": ("name",),
                        _V + "check_mapping": ("name", "keys"), _V + "config_dict": ("name", "default", "keys")})
ALLOWED.update({
    _V + "check_finite": {f"x:{k}": "only finiteness is checked here (kind, shape and size are the caller's)"
                          for k in ("complex", "empty", "wrong_rank", "negative")},
    _V + "real_values": {f"x:{k}": "converts only: values, shape and size are the caller's checks"
                         for k in ("nan", "inf", "negative", "empty", "wrong_rank")},
})
EXCLUDED.update({
    _V + "reject_masked": "a validator of one property (masked or not): any other input passes through by "
                          "design, as reject_complex's; exercised by every function that converts arrays",
})
ALLOWED.update({
    _V + "check_real": {"x:negative": "a real number of either sign"},
    _V + "reject_complex": {"x:nan": "only complex input is rejected here (finiteness is the caller's check)",
                            "x:inf": "only complex input is rejected here",
                            "x:negative": "only complex input is rejected here",
                            "x:empty": "only complex input is rejected here",
                            "x:wrong_rank": "only complex input is rejected here",
                            "x:none": "only complex input is rejected here",
                            "x:string": "only complex input is rejected here"},
})


# found by the 200-draw campaign: valid input that the 6-draw default never drew (merged into the
# entries above, not replacing them)
_FN = "attention_theory.foundations."
for _name, _extra in {
    **{_FN + f"norms.{f}": {f"{a}:inf": "inf is a norm order"} for f, a in (
        ("entrywise_norm", "p"), ("vector_norm", "p"))},
    _FN + "norms.mixed_norm": {"p:inf": "the (q, inf) mixed norm", "q:inf": "the (inf, p) mixed norm"},
    _FN + "norms.operator_norm": {"p:inf": "the (q, inf) operator norm", "q:inf": "the (inf, p) operator norm"},
    _FN + "norms.operator_norm_lower_bound": {"p:inf": "inf is a norm order", "q:inf": "inf is a norm order"},
    _FN + "rademacher.linear_class_rademacher_mc": {"p:inf": "the l_inf ball is a linear class"},
    **{_FN + f"losses.{f}": {"z:wrong_rank": "elementwise: any shape"}
       for f in ("logistic_loss", "logistic_loss_d1", "logistic_loss_d2")},
    _FN + "mirror.entrywise_lp": {"W:wrong_rank": "any shape (batch_dims selects the reduced axes)"},
    _FN + "softmax.softmax": {"v:wrong_rank": "acts on the last axis of any shape"},
    _FN + "softmax.softmax_jacobian": {"v:wrong_rank": "acts on the last axis of any shape"},
    "attention_theory.verify.outcomes.running_check": {
        "claim_id:string": "plumbing of claim_check, which validates the claim ID when it registers the pair",
        "check:string": "plumbing of claim_check, which validates the check name when it registers the pair"},
}.items():
    ALLOWED.setdefault(_name, {}).update(_extra)

# seeds (issue 30, item 7) and the shards of the other experiments (issue 29, item 4)
EXAMPLES.update({
    _V + "check_seeds": lambda: dict(seeds=[0, 5, 2**63 - 1], name="seeds"),
    _V + "torch_generator": lambda: dict(seed=2**40 + 3),
})
NOT_FUZZED_ARGS.update({_V + "check_seeds": ("name",)})
EXCLUDED.update({
    _V + "seed_torch_default": "seeds torch's global generators, which its callers restore "
                               "(torch.random.fork_rng); tested in tests/core/test_seeds.py",
    "attention_theory.experiment.seed_int": "an argparse type converter: raises argparse.ArgumentTypeError "
        "by contract (tests/core/test_seeds.py)",
    "attention_theory.experiment.DistinctSeeds": "an argparse action (tests/core/test_seeds.py)",
    "attention_theory.experiment.shard_output": "takes a RunContext of the experiment CLI "
        "(tests/core/test_experiment_shards_papers.py)",
})
ALLOWED.setdefault(_V + "torch_generator", {}).update({
    "seed:seed_2_63": "derived seeds (a seed plus an offset) may pass 2**63: every integer >= 0 maps to "
                      "its own generator (SeedSequence); the seeds users give are checked by check_seed"})
EXAMPLES["attention_theory.verify.campaign.task_jobs"] = lambda: dict(entry={"cpu_s": 13.0, "pieces_cpu_s": [3.0, 3.0]})
EXAMPLES["attention_theory.results.temporary_prefix"] = lambda: dict()
EXCLUDED[_V + "refuses_overflow"] = "a decorator (takes a function): tests/core/test_refuses_overflow.py"
EXAMPLES["attention_theory.provenance.json_data"] = lambda: dict(x={"a": (1.0, 2), 3: np.arange(2.0)})
ALLOWED["attention_theory.provenance.json_data"] = {"x:*": "any object has a JSON form (as jsonable's)"}
EXAMPLES["attention_theory.compute_cache.cache_folder"] = lambda: dict(environ={"ATTN_COMPUTE_CACHE": "0"})
EXAMPLES["attention_theory.compute_cache.cache_key"] = lambda: dict(name="f", args=(1, (2, 3)), kwargs={"a": 1.5})
EXCLUDED["attention_theory.compute_cache.cached_on_disk"] = ("a decorator (takes classes, returns a "
                                                             "decorator): tests/core/test_compute_cache.py")
ALLOWED["attention_theory.compute_cache.cache_key"] = {"name:string": "any string names a function"}
EXAMPLES["attention_theory.trauger.sparse_majority.training.BatchedEpochs"] = lambda: dict(
    config=SweepConfig(Ts=(12,), seeds=(3,), n_train=40, n_val=10, k=9, d=8, heads=2, batch_size=16,
                       max_epochs=5, eval_every=5, checkpoint_every=5, dtype="float64"))
ALLOWED["attention_theory.verify.contract.limit_sequence"] = {
    "family:string": "any phrase names the family of instances", "parameter:string": "any phrase names the parameter"}
_E1_RUNS_TOY = {p: {"curves": {q: {"final": [1e-3 if q == p else 1e-1, 2e-3 if q == p else 2e-1]}
                               for q in ("2.0", "3.0")},
                    "max_prob_median": [0.5, 0.995], "steps": [0, 50]} for p in ("2.0", "3.0")}
EXAMPLES["attention_theory.julistiono.mirror_descent_training.e1_conclusions"] = lambda: dict(
    runs=_E1_RUNS_TOY, small=2e-2)
EXAMPLES["attention_theory.julistiono.mirror_descent_training.e1_conclusions_changed"] = lambda: dict(
    a={"2.0": {"closest_q": "2.0", "own_closest": 1.0, "own_small": 1.0, "step_099": 50}},
    b={"2.0": {"closest_q": "3.0", "own_closest": 0.5, "own_small": 1.0, "step_099": None}})
# the single E1 run of the authors' directional-path plot, shortened (20 steps)
EXAMPLES["attention_theory.julistiono.mirror_descent_training.run_e1_single"] = lambda: dict(
    p=2.0, seed=1, steps=20, record_every=5)
# julistiono.real_data.load_cifar10 on the committed CIFAR-10 fixture (python-version layout); its
# `root` is a folder path: a wrong one raises FileNotFoundError (tests/julistiono/test_julistiono_units.py)
EXAMPLES["attention_theory.julistiono.real_data.load_cifar10"] = lambda: dict(
    root=Path(__file__).resolve().parents[1] / "julistiono" / "fixtures" / "cifar-10-batches-py", split="test")
NOT_FUZZED_ARGS["attention_theory.julistiono.real_data.load_cifar10"] = ("root",)
# julistiono (issue 34): the declared configurations of the parts of mirror-descent-training, its new
# entry points (whole runs), and the figures and tables of book/julistiono/experiments.md
_JMDT = "attention_theory.julistiono.mirror_descent_training."
_JFIG = "attention_theory.julistiono.figures."
EXAMPLES.update({_JMDT + f: (lambda: dict(scale="smoke")) for f in (
    "e1_book_v1_config", "e1_single_config", "e2_config", "e3_config", "e4_config")})
EXAMPLES[_JMDT + "e1_config"] = lambda: dict(scale="smoke", data="authors")
EXCLUDED.update({_JMDT + f: "runs a whole (smoke) experiment part: seconds to minutes per call; its "
                 "config is checked in tests/julistiono/test_mirror_descent_training.py"
                 for f in ("run_e1_seeds", "run_e1_singles")})
_JSTANDIN_TOY = ({"n_train": 4, "steps": 2, "lr": {"1.1": 1.0, "2.0": 3.0, "3.0": 0.3},
                  **{p: {"test_accuracy": 0.5, "attention_on_signal": 0.3, "sparsity_W": 0.1}
                     for p in ("1.1", "2.0", "3.0")}},
                 {k: {"test_accuracy": 0.5, "sparsity_all": 0.2} for k in ("md-1.1", "adam", "gd")})
EXCLUDED[_JFIG + "full_result"] = ("reads a committed result file of the repository (tests/julistiono/"
                                   "test_figures.py reads every one; a missing name prints a note)")
EXAMPLES[_JFIG + "e1_final_lines"] = lambda: dict(runs={
    p: {"curves": {q: {"final": [1e-3 if q == p else 1e-1, 2e-3 if q == p else 2e-1]}
                   for q in ("1.75", "2.0", "3.0")}}
    for p in ("1.75", "2.0", "3.0")})
EXAMPLES[_JFIG + "e1_comparison_lines"] = lambda: dict(cmp={"authors": {p: {
    "median": {"1.75": 1e-3, "2.0": 1e-2, "3.0": 1e-1}, "closest_q": p, "own_closest": 1.0, "own_small": 1.0,
    "saturation": 1e-3, "step_099": 50} for p in ("1.75", "2.0", "3.0")}})
EXAMPLES[_JFIG + "rescaled"] = lambda: dict(target=np.array([3.0, 4.0]), last=np.array([0.0, 10.0]))
EXAMPLES[_JFIG + "standin_lines"] = lambda: dict(e3=_JSTANDIN_TOY[0], e4=_JSTANDIN_TOY[1], scale="smoke")
EXAMPLES[_JFIG + "has_histograms"] = lambda: dict(standin={"e3_standin.json": {}})
EXCLUDED.update({_JFIG + f: "draws a matplotlib figure from a result's data (no numerical result to check); "
                 "tests/julistiono/test_figures.py draws it from the committed results" for f in (
    "plot_e1_curves", "plot_e1_single", "plot_implicit_bias", "plot_e2", "plot_e2_joint", "stairs",
    "plot_weight_histograms")})
# Qin E4 (teacher-student stability): tiny sizes, three GD steps
EXAMPLES["attention_theory.qin.stability.e4_instance"] = lambda: dict(seed=0, N=4, n_seq=2, d=6, dk=2, dv=6, m=8,
                                                                      rho1=1)
EXAMPLES["attention_theory.qin.stability.e4_runs"] = lambda: dict(
    seeds=(0, 1), eta=0.01, variant="residual", N=4, n_seq=2, d=6, dk=2, dv=6, m=8, steps=3, record=1,
    hessian_iters=3)
EXAMPLES["attention_theory.qin.stability.window_ratios"] = lambda: dict(
    step=[0, 10, 20, 30], loss=[1.0, 0.5, 0.25, 0.1], window=10)

# the new-paper scaffold (issue 34, helper G)
EXCLUDED["attention_theory.scaffold.new_paper"] = (
    "writes a new paper into the repository (a file-system command, not a numerical function); "
    "tests/core/test_scaffold.py runs it in a copy of the repository, its refusals included")
EXCLUDED["attention_theory.scaffold.render"] = (
    "the text of new-paper's files (templates filled with names); its refusals of malformed names "
    "are tested in tests/core/test_scaffold.py, its output for the key toy in test_contributing.py")

# trauger sparse-majority (issue 34, helper T2): the structured trainer split by concern
# (structured_forward, structured_step, structured) and the chapter's figure helpers
_SMF = "attention_theory.trauger.sparse_majority.structured_forward."
_SMS = "attention_theory.trauger.sparse_majority.structured_step."
_SMFIG = "attention_theory.trauger.sparse_majority.figures."


def _committed_benchmark() -> dict[str, Any]:
    """The body of the committed benchmark result (results/trauger-sparse-majority)."""
    from attention_theory.results import read_result

    folder = Path(__file__).resolve().parents[2] / "results" / "trauger-sparse-majority"
    return read_result(folder / "benchmark-structured.json")["data"]


EXAMPLES.update({
    _SMF + "check_authors_config": lambda: dict(config=ProtocolConfig()),
    _SMF + "check_method": lambda: dict(method="factorized"),
    _SMFIG + "protocol_markdown": lambda: dict(rows=[
        {"setting": "optimizer", "paper": "not given", "authors_code": "SGD_momentum", "book": "the same",
         "book_v1": "Adam", "departure": ""},
        {"setting": "seeds", "paper": "not given", "authors_code": "none", "book": "0-4",
         "book_v1": "0-4", "departure": "runs are seeded"}]),
    _SMFIG + "benchmark_summary": lambda: dict(data=_committed_benchmark()),
    _SMFIG + "bound_table": lambda: dict(
        rows=[{"T": 20, "B_w": 5.4, "B_Wc": 15.7, "B_Wv": 4.1, "B_QK": 6.2, "B_x": 0.04, "gap_bound": 120.0},
              {"T": 40, "B_w": 5.5, "B_Wc": 15.9, "B_Wv": 4.3, "B_QK": 6.4, "B_x": 0.04, "gap_bound": 130.0}],
        runs=[{"T": 20, "gen_gap": 0.12}, {"T": 20, "gen_gap": 0.1}, {"T": 40, "gen_gap": -0.01}]),
    _SMFIG + "initial_weight_l1": lambda: dict(T=20, seed=0),
})
EXCLUDED.update({
    **{_SMF + n: "an internal step of the structured forward on tensors the trainer built and checked "
       "(structured_logits, structured_loss and train_structured, its checked entry points, are fuzzed)"
       for n in ("ones_indicator", "select_indicator", "Layout", "make_layout", "batched_logits",
                 "per_run_loss")},
    _SMF + "check_inputs": "the argument checks of structured_logits and structured_loss (fuzzed through "
        "them); its shape is the ModelShape of a checked ProtocolConfig",
    **{_SMS + n: "an internal step of the structured trainer's hand-written forward/backward on tensors it "
       "built and checked (train_structured is fuzzed; tests/trauger/test_structured_trainer.py and "
       "test_structured_speed.py compare it with autograd)"
       for n in ("hand_consts", "hand_forward", "hand_backward", "hand_eval_consts", "hand_eval_forward",
                 "logit_grad", "name_major", "flat_of")},
    **{_SMFIG + n: "draws on a matplotlib Axes (no numerical result to check)"
       for n in ("per_seed_figure", "sweep_figure")},
    _SMFIG + "trend_test": "runs a registered check on committed result files (the chapter's figure "
        "statements; tests/trauger/test_sparse_majority_figures.py)",
})

# Qin (book/qin): the experiment residual-training (the module qin.experiments before issue 34), its
# declared configurations, and the figures of book/qin/experiments.md
_QRT = "attention_theory.qin.residual_training."
EXAMPLES.update({
    _QRT + "e1_instance": lambda: dict(seed=0, N=6, d=12, dk=4, dv=8, m=16, rho1=1, qk_std=0.05),
    _QRT + "empirical_rate": lambda: dict(losses=np.array([1.0, 1.0])),
    # hessian=True: without the Hessian run eta_hess is NaN by design (documented)
    _QRT + "rate_sweep": lambda: dict(kappas=(1.0, 5.0), seeds=(22,), steps=5, hessian=True),
    _QRT + "spearman": lambda: dict(x=[1, 1, 2], y=[1, 1, 2]),
    _QRT + "results_dir": lambda: dict(),
    **{_QRT + f"{part}_config": (lambda: dict(scale="smoke")) for part in ("lowrank", "e1", "e2", "e3", "e4")},
})
EXCLUDED.update({
    _QRT + "train_recording": "trains a model (an experiment); its instance comes from e1_instance, which is "
        "fuzzed",
    **{_QRT + n: "runs a whole (smoke) experiment part: seconds to minutes per call; its config is that of the "
       "part's config function (fuzzed; tests/qin/test_residual_training.py)"
       for n in ("run_e1", "run_e2", "run_e3", "run_lowrank", "lowrank_spectrum")},
    **{"attention_theory.qin.figures." + n: "draws on a matplotlib Axes (no numerical result to check)"
       for n in ("plot_lowrank", "plot_e1", "plot_e2", "plot_e4")},
    **{"attention_theory.qin.figures." + n: "reads a result of residual-training (a nested dict of a result "
       "file, where non-finite losses of diverged runs are data): tests/qin/test_figures.py on the committed "
       "results" for n in ("lowrank_summary", "e1_final_losses", "e1_ranges", "e1_diverged", "e2_summary",
                           "e3_table", "e3_summary", "e4_settings_table", "e4_summary")},
})

# trauger (issue 34, helper T1): the instances and the adversaries' objectives of the checks of
# book/trauger/{linear-covering,single-layer,multi-layer}.md, moved out of the check modules
_TLC = "attention_theory.trauger.linear_covering."
_TLS = "attention_theory.trauger.linear_covering_search."
_TSL = "attention_theory.trauger.single_layer."
_TSS = "attention_theory.trauger.single_layer_search."
_TML = "attention_theory.trauger.multi_layer."
_TMC = "attention_theory.trauger.multi_layer_cover."
_TMS = "attention_theory.trauger.multi_layer_search."


def _trauger_maurey() -> Any:
    from attention_theory.foundations import maurey

    return maurey


def _trauger_bounds() -> tuple[Any, Any]:
    from attention_theory.trauger import multi_layer_bounds, single_layer_bounds

    return single_layer_bounds, multi_layer_bounds


_TRAUGER_NETS: list = []


def _trauger_nets() -> tuple:
    """One trial network of composite_cover_trials (built once: the fuzz suite mutates only the
    argument as a whole, never the networks inside)."""
    from attention_theory.trauger.multi_layer_cover import composite_cover_trials

    if not _TRAUGER_NETS:
        _TRAUGER_NETS.extend(composite_cover_trials(seed=0, count=1, n_inputs=1)["nets"])
    return tuple(_TRAUGER_NETS)


def _trauger_search() -> Any:
    from attention_theory.search import SizedSearch

    return SizedSearch(best_value=0.5, best_size=(1, 1, 1), best_method="lbfgs", best_x=np.zeros(3),
                       per_size={"(1, 1, 1)": 0.5, "(2, 2, 2)": 0.3, "(3, 1, 1)": 0.2}, budget={})


EXAMPLES.update({
    _TLC + "app_a_deep_hole_errors": lambda: dict(radius_factor=lambda k, q: k ** (1 / q)),
    _TLC + "app_a_row_cover_instances": lambda: dict(seed=0, count=1),
    _TLC + "app_b_chain_instances": lambda: dict(seed=0, count=2, column_reading=True),
    _TLC + "ceiling_outcomes": lambda: dict(size=_trauger_maurey().log_cover_size_lemma33,
                                            bound=_trauger_maurey().log_cover_bound_lemma33, printed_ceiling=False),
    _TLC + "construction_size_grid": lambda: dict(size=_trauger_maurey().log_cover_size_lemma36,
                                                  bound=_trauger_maurey().log_cover_bound_lemma36,
                                                  printed=_trauger_maurey().log_cover_bound_lemma36),
    _TLC + "covering_number_any_q": lambda: dict(F=unif((3, 2, 2)), eps=0.5, q=0.5),
    _TLC + "deep_hole": lambda: dict(K=2),
    _TLC + "deep_hole_cover_errors": lambda: dict(orientation="row"),
    _TLC + "deep_hole_enumerated_distances": lambda: dict(),
    _TLC + "flat_atom_packing_distances": lambda: dict(),
    _TLC + "l1_atom_packing_distances": lambda: dict(),
    _TLC + "l33_greedy_cover_instances": lambda: dict(seed=0, count=1),
    _TLC + "l33_test_matrices": lambda: dict(rng=np.random.default_rng(0), k=3, d=2, Bw=1.0, count=4),
    _TLC + "l34_kappa_grid": lambda: dict(rhs=_trauger_maurey().log_cover_bound_lemma34),
    _TLC + "l34_packing_distances": lambda: dict(packing_distance=lambda s, d: 2 ** 0.5 / (s * d ** 0.5)),
    _TLC + "l36_greedy_cover_instances": lambda: dict(seed=0, count=1),
    _TLC + "maurey_greedy_errors": lambda: dict(seed=0, count=2, gamma_power=1.0),
    _TLC + "maurey_instances": lambda: dict(seed=0, count=2),
    _TLC + "maurey_tightness_instances": lambda: dict(seed=0, count=1, rhs_factor=1.0),
    _TLC + "packing_grid": lambda: dict(rhs=_trauger_maurey().log_cover_bound_lemma33,
                                        lower=lambda d, k: d * np.log(2 * k), eps_grid=(0.5, 0.2)),
    _TLC + "padded_basis_cover_numbers": lambda: dict(seed=11, count=1),
    _TLC + "reduction_cover_numbers": lambda: dict(seed=11, count=1),  # seed 11: a class of 5 functions
    _TLC + "reduction_pointwise_instances": lambda: dict(seed=0, count=1, basis_scale=1.0),
    _TLC + "row_sum_instances": lambda: dict(seed=0, count=2),
    _TLC + "sec34_instances": lambda: dict(seed=0, count=3),
    _TLS + "app_a_row_cover_objective": lambda: dict(),
    _TLS + "app_b_chain_objective": lambda: dict(column_reading=True),
    _TLS + "column_cover_objective": lambda: dict(),
    _TLS + "enumerated_cover_objective": lambda: dict(cases=[(2, 0.8)]),
    _TLS + "flat_cover_objectives": lambda: dict(frobenius_K_offset=0),
    _TLS + "maurey_greedy_objective": lambda: dict(gamma_power=1.0),
    _TLS + "maurey_tightness_objective": lambda: dict(rhs_factor=1.0),
    _TLS + "packing_objective": lambda: dict(rhs=_trauger_maurey().log_cover_bound_lemma33,
                                             lower=lambda d, k: d * np.log(2 * k), divisor=2.0),
    _TLS + "reduction_pointwise_objective": lambda: dict(basis_scale=1.0),
    _TLS + "row_sum_containment_objective": lambda: dict(),
    _TLS + "row_sum_cover_objective": lambda: dict(),
    _TLS + "sec34_objective": lambda: dict(factor=float),
    _TSL + "chain_cover_values": lambda: dict(rng=np.random.default_rng(0), count=1,
                                              cover=_trauger_maurey().cover_flat_l1),
    _TSL + "chain_deep_hole_values": lambda: dict(cover=_trauger_maurey().cover_flat_l1),
    _TSL + "chain_link_instances": lambda: dict(rng=np.random.default_rng(0), count=1, softmax_lip=2.0),
    _TSL + "chain_links": lambda: dict(X=unif((3, 2)), W=unif((2, 2), seed=1), What=unif((2, 2), seed=2),
                                       x_cls=unif((2,), seed=3), softmax_lip=2.0),
    _TSL + "cls_row_instances": lambda: dict(seed=0, count=1),
    _TSL + "contraction_values": lambda: dict(seed=0, count=1, L_factor=1.0),
    _TSL + "duality_values": lambda: dict(seed=0, count=2, factor=1.0),
    "attention_theory.trauger.single_layer_bounds.dudley_closed_form_values": lambda: dict(closed_form=_trauger_bounds()[0].dudley_inf_printed,
                                                     clipped_form=_trauger_bounds()[0].dudley_inf_printed),
    "attention_theory.trauger.single_layer_bounds.dudley_grid": lambda: dict(),
    "attention_theory.trauger.single_layer_bounds.dudley_quadrature_values": lambda: dict(integrand_b_factor=1.0),
    _TSL + "log_relaxation_grid": lambda: dict(minus_log=True),
    _TSL + "multihead_values": lambda: dict(seed=0, m=3),
    _TSL + "orientation_wc_values": lambda: dict(k=8, d=4, m=10, seed=0, n_signs=50),
    _TSL + "orientation_wv_ratios": lambda: dict(d=64, m=65, printed_gain=0.5),
    _TSL + "peeling_identity_values": lambda: dict(seed=0, n_signs=2),
    _TSL + "peeling_relu_values": lambda: dict(seed=0, m=2, steps=5),
    _TSL + "pointwise_bound_values": lambda: dict(seed=0, count=1, factor=1.0),
    _TSL + "printed_feasible_rad": lambda: dict(seed=0),
    _TSL + "printed_pointwise_values": lambda: dict(d=4, seed=0, count=2),
    _TSL + "rad_uniform_attention_exact": lambda: dict(X=unif((3, 4, 2)), B=1.0),
    _TSL + "sign_removal_values": lambda: dict(seed=0, count=1, factor=2.0),
    # seed 73: the cheapest covers (about 1,100 Maurey steps in all)
    _TSS + "chain_cover_objective": lambda: dict(seed=73, cover=_trauger_maurey().cover_flat_l1),
    _TSS + "contraction_objective": lambda: dict(L_factor=1.0),
    _TSS + "duality_objective": lambda: dict(),
    _TSS + "dudley_clipped_objective": lambda: dict(clipped_form=_trauger_bounds()[0].dudley_inf_printed),
    _TSS + "log_relaxation_objective": lambda: dict(minus_log=True),
    _TSS + "multihead_objective": lambda: dict(),
    _TSS + "peeling_identity_objective": lambda: dict(seed=0, B_w=1.5, B_Wc=0.7, B_Wv=2.0),
    _TSS + "peeling_relu_objective": lambda: dict(B_w=1.0, B_Wc=2.0, B_Wv=0.5),
    _TSS + "pointwise_objective": lambda: dict(),
    _TSS + "sign_removal_objective": lambda: dict(include_zero=True, factor=2.0),
    _TSS + "small_m_ratios": lambda: dict(res=_trauger_search(), bound=lambda m, d: 1.0 + m + d),
    _TSS + "whole_chain_objective": lambda: dict(softmax_lip=2.0),
    _TML + "cor421_regimes": lambda: dict(seed=0, count=2),
    _TML + "dudley_rademacher_numeric": lambda: dict(A=2.0, m=10, R=1.0),
    _TML + "e2_init": lambda: dict(T=2, d=2, k=1, g=np.random.default_rng(0)),
    _TML + "e2_unpack": lambda: dict(v=torch.from_numpy(unif((24,))), T=2, d=2, k=1, rho=1.0),
    _TML + "layer1_values": lambda: dict(Bxs=[0.5, 2.0], rho_power=2.0),
    _TML + "lemma_e1_instances": lambda: dict(seed=0, count=1, gamma=_trauger_bounds()[1].lemma_e1_gamma,
                                              lower_gamma=_trauger_bounds()[1].lemma_e1_gamma),
    _TML + "lemma_e1_slsqp_minimum": lambda: dict(C=np.array([1.0, 2.0]), beta=np.array([0.5, 1.0]), eps=1.0,
                                                  x0=np.array([0.5, 0.5])),
    _TML + "lemma_e2_equality": lambda: dict(rng=np.random.default_rng(0)),
    _TML + "lemma_e2_instances": lambda: dict(rng=np.random.default_rng(0), count=1, rho_of=lambda g: 0.8,
                                              rhs_rho=lambda r: 1.0, rhs_kwargs={"c_delta": 1.0}),
    _TML + "log_cube_l1_cover_lower": lambda: dict(d=10, B=1.0, eps=0.5),
    _TML + "perturbed_network": lambda: dict(rng=np.random.default_rng(0), L=1, d=2, k=2, scale=0.1,
                                             bounds=(1.0, 1.0, 1.0)),
    _TML + "readout_instances": lambda: dict(seed=0, count=1, second_term=1.0),
    _TML + "sec43_dudley_values": lambda: dict(seed=0, count=1),
    _TML + "sup_identity_values": lambda: dict(seed=0, count=2),
    _TML + "unrolled_instances": lambda: dict(seed=0, count=1, c_qk=2.0, alpha_qk=4.0),
    _TMC + "composite_cover_trials": lambda: dict(seed=0, count=1, n_inputs=1),
    _TMC + "flat_deep_hole": lambda: dict(shape=(2, 2), B=1.0),
    _TMC + "thm42_allocation": lambda: dict(L=1, d=2, k=2, B=1.0, target=1.0),
    _TMC + "thm42_certified_minima": lambda: dict(seed=0, count=0,
                                                  printed=_trauger_bounds()[1].thm42_printed_constant),
    _TMC + "thm42_instances": lambda: dict(rng=np.random.default_rng(0), count=1),
    _TMC + "thm42_tight_instances": lambda: dict(eps_factor=1.0, cover_coarsening=1.0, certificate_factor=1.0,
                                                 B=1.0, d=2, k=2),
    _TMS + "composite_input_objective": lambda: dict(nets=list(_trauger_nets()), d=2, certificate_factor=1.0),
    _TMS + "composite_matrix_objective": lambda: dict(B=1.0, cover_coarsening=1.0),
    _TMS + "composite_size_objective": lambda: dict(B=1.0, eps_factor=1.0, cover_coarsening=1.0,
                                                    size_constant=_trauger_bounds()[1].thm42_proof_constant),
    _TMS + "hoelder_objective": lambda: dict(lower_gamma=_trauger_bounds()[1].lemma_e1_gamma),
    _TMS + "lemma_e2_objective": lambda: dict(rhs_rho=lambda r: 1.0, rhs_kwargs={"c_delta": 1.0}),
    _TMS + "readout_objective": lambda: dict(second_term=1.0),
    _TMS + "unrolled_objective": lambda: dict(c_qk=2.0, alpha_qk=4.0),
})
ALLOWED.update({_TLC + "covering_number_any_q": {"q:inf": "q = inf is the sup norm (documented)"}})
EXCLUDED.update({
    _TSS + "small_m_rad_search": "an adversarial search (seconds per call at smoke scale, cached per scale) that "
        "three registered checks of book/trauger/single-layer.md run (their negative controls too); its "
        "arguments are refused by name before the search starts (tests/trauger/test_trauger_single_layer.py)",
})


# --- deora: the parts' configurations, the chapters' live runs, the figures of the experiment
# chapters and the instances of the landscape and training checks.

_DHS = "attention_theory.deora.head_sweeps."
_DER = "attention_theory.deora.experiment_runs."
_DFG = "attention_theory.deora.figures."
_DLS = "attention_theory.deora.landscape_search."
_DTR = "attention_theory.deora.training."
EXAMPLES.update({
    _DHS + "figure_config": lambda: dict(fig="fig4", scale="smoke", engine="reduced"),
    **{_DHS + f"{n}_config": (lambda: dict(scale="smoke")) for n in ("fig2", "fig2_heads", "fig2_random", "fig3",
                                                                       "fig4", "fig5")},
    _DHS + "figure_data": lambda: dict(config=dict(
        trials=1, n_train=5, n_test=5, Hs=[1], data_model="dm1", seed=0, engine="reduced", figure="fig2",
        init_scale=0.0, settings=[dict(optimizer="gd", lr_rule="constant", lr=1.0, steps=1)])),
    _DHS + "as_runs": lambda: dict(block={"runs": {"gd:constant:1.0": {"1": {"step": [0, 1], "train_loss": [[0.7], [0.6]],
                                                                              "H": 1}}}}),
    _DER + "live_config": lambda: dict(fig="fig4"),
    "attention_theory.deora.sst2.sst2_config": lambda: dict(scale="smoke"),
    _DLS + "segment_sizes": lambda: dict(),
    _DLS + "tight_families": lambda: dict(),
    _DTR + "heads_exact_sqrt": lambda: dict(D=0.2, B=0.5, T=2, d=2, R=1.0),
    _DTR + "rho_corrected_order": lambda: dict(D=0.2, B=0.5, T=2, d=2, R=1.0, H=307),
    _DTR + "order_grid": lambda: dict(seed=212),
})
EXCLUDED.update({
    _DHS + "run_config": "runs a whole (smoke) experiment: seconds to minutes per call",
    "attention_theory.deora.heads_training.prefix_agreement": "trains both engines of a sweep (a smoke "
        "experiment); its data and settings come from the parts' configurations (tests/deora/test_heads_training.py)",
    **{_DER + n: "reads the run dictionaries of a whole smoke experiment (or of the committed results); "
       "tests/deora/test_nc_experiments.py and test_nc_planted_teacher.py exercise it through the checks" for n in (
        "ordered_in_H", "runs_family", "trajectory_gaps")},
    **{_DER + n: "trains from the live runs of a whole smoke experiment (seconds); run by the chapters"
       for n in ("random_start_dm1", "random_start_dm2")},
    **{_DFG + n: "draws a figure of an experiment chapter from the runs of a committed result or a live smoke "
       "run (tests/deora/test_figures.py draws it from the committed results)" for n in (
        "plot_trajectory_gaps", "plot_fig3", "plot_random_start", "plot_dm2_smoke", "plot_dm2_full",
        "plot_substitute")},
    **{_DFG + n: "reads the runs of a committed result (nested dicts of a result file) and returns the text or "
       "numbers a chapter quotes: tests/deora/test_figures.py on the committed results" for n in (
        "engine_cost_text", "trajectory_source", "trajectory_lines", "trajectory_numbers", "fig2_numbers",
        "fig3_numbers", "ordering_lines", "random_start_lines", "random_start_numbers", "dm2_numbers",
        "substitute_table", "substitute_numbers")},
    **{_DLS + n: "an internal step of the landscape checks on the closures, sizes and instances they build "
       "(tests/deora/test_nc_landscape.py runs it through the checks)" for n in (
        "beta3_t", "bottom_eigvec", "eq15_ratio", "eq16_ratio", "head_scaling", "lam_min_batch", "landscape_init",
        "landscape_point", "landscape_quantities", "landscape_ratio", "lemma6_rhs", "min_lam_on_segment",
        "pair_instances", "ratio_items", "search_data", "seg_lam_min", "segment_lam_min", "segment_search",
        "segments", "taylor_ratio")},
    **{_DLS + n: "an adversarial search or its instances (seconds, kept on disk and per scale) that the "
       "landscape checks and their negative controls run" for n in ("searched_points", "taylor_instances",
                                                                     "taylor_search")},
    **{_DTR + n: "an internal step of the training checks on the runs, sizes and search points they build "
       "(tests/deora/test_nc_training.py runs it through the checks)" for n in (
        "certified_instance", "cor3_sides", "flin_instance", "flin_uphill", "segment_tau", "thm1_sides")},
    _DTR + "certified_runs": "runs a whole (smoke) experiment: seconds to minutes per call",
    **{f"attention_theory.deora.stability.{n}": "an internal step of the stability checks' adversarial searches "
       "on the points and data they build (tests/deora/test_nc_stability.py runs it through the checks)"
       for n in ("eq19_point", "eq19_ratio", "cor4_sides")},
})
for _name in EXCLUDED:
    EXAMPLES.pop(_name, None)
