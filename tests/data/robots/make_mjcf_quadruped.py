"""Writes mjcf_quadruped.xml (issue 26): a 12-joint quadruped written by hand, no source
file; run ``python make_mjcf_quadruped.py`` in this folder."""
LEGS = {"LF": (0.25, 0.12, 1), "RF": (0.25, -0.12, -1), "LH": (-0.25, 0.12, 1),
        "RH": (-0.25, -0.12, -1)}


def leg(n, x, y, s):
    return f'''      <body name="{n}_hip" pos="{x} {y} 0">
        <joint name="{n}_HAA" axis="1 0 0" range="-0.7 0.7" damping="1"/>
        <inertial pos="0 {0.02*s} 0" mass="0.5" diaginertia="0.0004 0.0004 0.0004"/>
        <geom type="cylinder" size="0.03 0.03" quat="0.7071068 0.7071068 0 0" contype="0" conaffinity="0"/>
        <body name="{n}_thigh" pos="0 {0.05*s} 0">
          <joint name="{n}_HFE" axis="0 1 0" range="-1.5 1.5" damping="1"/>
          <inertial pos="0 0 -0.1" mass="1.0" fullinertia="0.0035 0.0034 0.0004 0 0.0001 0"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.025" contype="0" conaffinity="0"/>
          <body name="{n}_shank" pos="0 0 -0.2">
            <joint name="{n}_KFE" axis="0 1 0" range="-2.6 0.1" damping="1"/>
            <inertial pos="0 0 -0.1" mass="0.3" diaginertia="0.0011 0.0011 0.0001"/>
            <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.015" contype="0" conaffinity="0"/>
            <body name="{n}_FOOT" pos="0 0 -0.2">
              <inertial pos="0 0 0" mass="0.05" diaginertia="0.000008 0.000008 0.000008"/>
              <geom name="{n}_foot_sphere" type="sphere" size="0.02" friction="0.8"/>
            </body>
          </body>
        </body>
      </body>'''


HEAD = '''<!-- A 12-joint quadruped written by hand for mechdae's MJCF tests and benchmarks (issue 26):
     a 10 kg box torso on a free joint, four legs of hip abduction (HAA, about x), hip
     flexion (HFE, about y) and knee (KFE, about y) hinges, a thigh and a shank of 0.2 m and
     a spherical foot (radius 0.02 m, the only colliding geoms besides the floor) on a body
     fixed to each shank; joint damping 1 N m s/rad. Legs straight, it stands with the
     torso's origin at z = 0.42 (the tests hold the joints with springs at zero angle).
     Made by tests/data/robots/make_mjcf_quadruped.py. -->
<mujoco model="quadruped12">
  <compiler angle="radian"/>
  <option gravity="0 0 -9.81" timestep="0.001"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="0.8"/>
    <body name="torso" pos="0 0 0.42">
      <freejoint name="root"/>
      <inertial pos="0.01 0 0.005" mass="10.0" fullinertia="0.09 0.32 0.37 0.002 0.001 0"/>
      <geom type="box" size="0.3 0.15 0.075" contype="0" conaffinity="0"/>
'''
TAIL = '''
    </body>
  </worldbody>
</mujoco>
'''

if __name__ == "__main__":
    with open("mjcf_quadruped.xml", "w") as f:
        f.write(HEAD + "\n".join(leg(n, *v) for n, v in LEGS.items()) + TAIL)
