# A Flax CNN jitted by XLA: two 3x3 convolutions and a dense layer, STEPS
# (5) SGD steps on a batch of 32 random 32x32x3 images.
import os, time, jax, jax.numpy as jnp, flax.linen as nn

class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Conv(32, (3, 3))(x))
        x = nn.avg_pool(x, (2, 2), (2, 2))
        x = nn.relu(nn.Conv(64, (3, 3))(x))
        x = x.mean(axis=(1, 2))
        return nn.Dense(10)(x)

m = CNN()
k1, k2 = jax.random.split(jax.random.PRNGKey(0))
x = jax.random.normal(k1, (32, 32, 32, 3))
y = jax.random.randint(k2, (32,), 0, 10)
p = m.init(k1, x)

@jax.jit
def step(p, x, y):
    def loss(p):
        lg = m.apply(p, x)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(lg), y[:, None], 1))
    l, g = jax.value_and_grad(loss)(p)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), l

t = time.perf_counter()
for _ in range(int(os.environ.get("STEPS", "5"))):
    p, l = step(p, x, y)
l.block_until_ready()
print("flax_cnn: loss %.3f in %.1f s" % (float(l), time.perf_counter() - t))
