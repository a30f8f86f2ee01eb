"""Loss functions and their gradients, as training code writes them."""

import jax
import jax.numpy as jnp
import numpy as np

from jax_harness import floats, ints


def softmax_xent_int_labels(logits, labels):
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


def label_smoothing_xent(logits, labels, smoothing=0.1):
    n = logits.shape[-1]
    target = jax.nn.one_hot(labels, n) * (1 - smoothing) + smoothing / n
    return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits), -1))


def sigmoid_bce(logits, targets):
    # The numerically stable form: max(x, 0) - x * z + log(1 + exp(-|x|)).
    return jnp.mean(jnp.maximum(logits, 0) - logits * targets
                    + jnp.log1p(jnp.exp(-jnp.abs(logits))))


def huber(pred, target, delta=1.0):
    err = jnp.abs(pred - target)
    return jnp.mean(jnp.where(err < delta, 0.5 * err ** 2,
                              delta * (err - 0.5 * delta)))


def kl_div(logp, logq):
    return jnp.sum(jnp.exp(logp) * (logp - logq), axis=-1).mean()


def focal_loss(logits, labels, gamma=2.0):
    logp = jax.nn.log_softmax(logits)
    logpt = jnp.take_along_axis(logp, labels[:, None], 1)[:, 0]
    return -jnp.mean((1 - jnp.exp(logpt)) ** gamma * logpt)


def masked_lm_loss(logits, labels, mask):
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]
    return jnp.sum(nll * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def contrastive_infonce(a, b, temperature=0.1):
    a = a / jnp.linalg.norm(a, axis=-1, keepdims=True)
    b = b / jnp.linalg.norm(b, axis=-1, keepdims=True)
    logits = a @ b.T / temperature
    labels = jnp.arange(a.shape[0])
    return softmax_xent_int_labels(logits, labels)


def hinge(scores, labels):
    # Multi-class SVM: margin against every wrong class.
    correct = jnp.take_along_axis(scores, labels[:, None], 1)
    margins = jnp.maximum(0, scores - correct + 1.0)
    margins = margins * (1 - jax.nn.one_hot(labels, scores.shape[1]))
    return margins.sum(1).mean()


def _logits_labels(rng, n=6, c=5):
    return [floats(rng, (n, c)) * 2, ints(rng, (n,), 0, c)]


PROGRAMS = {
    "xent_int_labels_grad": (jax.value_and_grad(softmax_xent_int_labels),
                             _logits_labels),
    "label_smoothing_grad": (jax.grad(label_smoothing_xent), _logits_labels),
    "sigmoid_bce_grad": (
        jax.grad(sigmoid_bce),
        lambda r: [floats(r, (4, 7)) * 5,
                   r.integers(0, 2, (4, 7)).astype(np.float32)]),
    "mse_l1_losses": (
        lambda p, t: (jnp.mean((p - t) ** 2), jnp.mean(jnp.abs(p - t)),
                      jax.grad(lambda p: jnp.mean(jnp.abs(p - t)))(p)),
        lambda r: [floats(r, (5, 3)), floats(r, (5, 3))]),
    "huber_grad": (jax.grad(huber), lambda r: [floats(r, (20,)) * 2,
                                               floats(r, (20,))]),
    "kl_divergence": (
        lambda a, b: kl_div(jax.nn.log_softmax(a), jax.nn.log_softmax(b)),
        lambda r: [floats(r, (3, 6)), floats(r, (3, 6))]),
    "focal_loss_grad": (jax.grad(focal_loss), _logits_labels),
    "masked_lm_loss_grad": (
        jax.grad(masked_lm_loss),
        lambda r: [floats(r, (2, 5, 7)), ints(r, (2, 5), 0, 7),
                   r.integers(0, 2, (2, 5)).astype(np.float32)]),
    "infonce_grad": (jax.grad(contrastive_infonce, argnums=(0, 1)),
                     lambda r: [floats(r, (4, 6)), floats(r, (4, 6))]),
    "multiclass_hinge_grad": (jax.grad(hinge), _logits_labels),
}
