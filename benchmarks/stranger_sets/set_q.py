"""Corpus Q: geometry, graphics, robotics and GIS kernels over point clouds, rays, meshes and lat/lon arrays.

Programs in the style of working graphics, robotics, GIS and computational-geometry
code: homogeneous 4x4 transforms applied to (N, 3) clouds with np.hstack of ones and @,
Euler / axis-angle / quaternion rotations (batched with np.einsum), look-at cameras with
perspective projection and frustum clipping, barycentric and crossing-number inside tests,
vectorised ray-sphere, ray-plane and ray-triangle intersection, per-label bounding boxes
with np.minimum.at / np.maximum.at, PCA oriented boxes, shoelace areas, a monotone-chain
hull with plain Python loops, brute-force k-nearest neighbours with argpartition, grid
hashing and voxel downsampling via np.floor + np.unique(axis=0) + np.bincount / np.add.at,
mesh face and vertex normals, haversine distances and web-mercator tiles, iterative
Douglas-Peucker, planar-arm kinematics with np.cumsum, IMU quaternion integration,
segment intersection by orientation tests, z-buffer rasterisation, nearest-neighbour
homography warps, bilinear sampling, Kabsch alignment and lidar scan unprojection.
Float64 and float32 inputs are mixed, with sizes from a hundred to a million points.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _euler_zyx_matrix(yaw, pitch, roll):
    cy, sy = math.cos(yaw), math.sin(yaw)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cr, sr = math.cos(roll), math.sin(roll)
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    return rz @ ry @ rx


def _quat_mul(a, b):
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=-1)


def _quat_to_matrix(q):
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    r00 = 1 - 2 * (y * y + z * z)
    r01 = 2 * (x * y - z * w)
    r02 = 2 * (x * z + y * w)
    r10 = 2 * (x * y + z * w)
    r11 = 1 - 2 * (x * x + z * z)
    r12 = 2 * (y * z - x * w)
    r20 = 2 * (x * z - y * w)
    r21 = 2 * (y * z + x * w)
    r22 = 1 - 2 * (x * x + y * y)
    return np.stack([
        np.stack([r00, r01, r02], axis=-1),
        np.stack([r10, r11, r12], axis=-1),
        np.stack([r20, r21, r22], axis=-1),
    ], axis=-2)


def _cross2(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _orient(a, b, c):
    return ((b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1])
            - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0]))


def _normalize(v, eps=1e-12):
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(n, eps)


# ---------------------------------------------------------------------------
# transforms and rotations
# ---------------------------------------------------------------------------

def transform_point_cloud_homogeneous(points, transform):
    n = points.shape[0]
    homo = np.hstack([points, np.ones((n, 1), dtype=points.dtype)])
    out = homo @ transform.T
    w = out[:, 3:4]
    return out[:, :3] / w


def euler_rotate_and_bounds(points, yaw, pitch, roll, translation):
    R = _euler_zyx_matrix(yaw, pitch, roll).astype(points.dtype)
    rotated = points @ R.T + translation
    lo = rotated.min(axis=0)
    hi = rotated.max(axis=0)
    center = 0.5 * (lo + hi)
    return rotated - center, lo, hi


def axis_angle_matrices_apply(axes, angles, vectors):
    k = axes / np.linalg.norm(axes, axis=-1, keepdims=True)
    kx, ky, kz = k[..., 0], k[..., 1], k[..., 2]
    zeros = np.zeros_like(kx)
    K = np.stack([
        np.stack([zeros, -kz, ky], axis=-1),
        np.stack([kz, zeros, -kx], axis=-1),
        np.stack([-ky, kx, zeros], axis=-1),
    ], axis=-2)
    s = np.sin(angles)[:, None, None]
    c = np.cos(angles)[:, None, None]
    eye = np.eye(3, dtype=axes.dtype)[None]
    R = eye + s * K + (1 - c) * (K @ K)
    return np.einsum('nij,nj->ni', R, vectors)


def trajectory_pose_compose(quats, translations, probe):
    rots = _quat_to_matrix(quats)
    n = quats.shape[0]
    steps = np.zeros((n, 4, 4))
    steps[:, :3, :3] = rots
    steps[:, :3, 3] = translations
    steps[:, 3, 3] = 1.0
    pose = np.eye(4)
    positions = np.empty((n, 3))
    for i in range(n):
        pose = pose @ steps[i]
        positions[i] = pose[:3, :3] @ probe + pose[:3, 3]
    path_len = np.sum(np.linalg.norm(np.diff(positions, axis=0), axis=-1))
    return positions, pose, path_len


def imu_quaternion_integrate(gyro, dt=0.01):
    T, B, _ = gyro.shape
    q = np.zeros((B, 4))
    q[:, 0] = 1.0
    for t in range(T):
        w = gyro[t]
        rate = np.linalg.norm(w, axis=-1, keepdims=True)
        axis = w / np.maximum(rate, 1e-12)
        half = 0.5 * rate * dt
        dq = np.concatenate([np.cos(half), axis * np.sin(half)], axis=-1)
        q = _quat_mul(q, dq)
        q /= np.linalg.norm(q, axis=-1, keepdims=True)
    # canonical sign so w >= 0
    q = np.where(q[:, :1] < 0, -q, q)
    return q


def kabsch_rigid_align(src, dst):
    cs = src.mean(axis=0)
    cd = dst.mean(axis=0)
    H = (src - cs).T @ (dst - cd)
    U, S, Vt = np.linalg.svd(H)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    D = np.diag([1.0, 1.0, d])
    R = Vt.T @ D @ U.T
    t = cd - R @ cs
    aligned = src @ R.T + t
    rmse = np.sqrt(np.mean(np.sum((aligned - dst) ** 2, axis=1)))
    return R, t, rmse


# ---------------------------------------------------------------------------
# cameras and projection
# ---------------------------------------------------------------------------

def look_at_frustum_cull(points, eye, target, up, fov_deg=60.0, aspect=1.5,
                         near=0.1, far=100.0):
    f = target - eye
    f = f / np.linalg.norm(f)
    s = np.cross(f, up)
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    view = np.eye(4)
    view[0, :3] = s
    view[1, :3] = u
    view[2, :3] = -f
    view[:3, 3] = -view[:3, :3] @ eye
    t = math.tan(math.radians(fov_deg) / 2)
    proj = np.zeros((4, 4))
    proj[0, 0] = 1.0 / (aspect * t)
    proj[1, 1] = 1.0 / t
    proj[2, 2] = (far + near) / (near - far)
    proj[2, 3] = 2 * far * near / (near - far)
    proj[3, 2] = -1.0
    n = points.shape[0]
    homo = np.concatenate([points, np.ones((n, 1))], axis=1)
    clip = homo @ (proj @ view).T
    w = clip[:, 3]
    inside = (w > 0) & np.all(np.abs(clip[:, :3]) <= w[:, None], axis=1)
    ndc = clip[inside, :3] / w[inside, None]
    return int(inside.sum()), ndc.mean(axis=0), ndc.min(axis=0), ndc.max(axis=0)


def project_to_pixel_histogram(points_cam, K, width, height, min_depth=0.1):
    z = points_cam[:, 2]
    front = z > min_depth
    pts = points_cam[front]
    uvw = pts @ K.T
    u = uvw[:, 0] / uvw[:, 2]
    v = uvw[:, 1] / uvw[:, 2]
    px = np.floor(u).astype(np.int64)
    py = np.floor(v).astype(np.int64)
    valid = (px >= 0) & (px < width) & (py >= 0) & (py < height)
    image = np.zeros((height, width), dtype=np.int32)
    np.add.at(image, (py[valid], px[valid]), 1)
    return image


def camera_rays_world(width, height, fx, fy, cam_to_world):
    j, i = np.meshgrid(np.arange(height, dtype=np.float32),
                       np.arange(width, dtype=np.float32), indexing='ij')
    dirs = np.stack([(i + 0.5 - width * 0.5) / fx,
                     -(j + 0.5 - height * 0.5) / fy,
                     -np.ones_like(i)], axis=-1)
    world_dirs = np.einsum('ij,hwj->hwi', cam_to_world[:3, :3], dirs)
    world_dirs = world_dirs / np.linalg.norm(world_dirs, axis=-1, keepdims=True)
    origins = np.broadcast_to(cam_to_world[:3, 3], world_dirs.shape).copy()
    return origins, world_dirs


def lidar_scan_to_world(ranges, azimuth, elevation, pose, min_range=0.5, max_range=80.0):
    ce = np.cos(elevation)[:, None]
    se = np.sin(elevation)[:, None]
    ca = np.cos(azimuth)[None, :]
    sa = np.sin(azimuth)[None, :]
    x = ranges * ce * ca
    y = ranges * ce * sa
    z = ranges * se * np.ones_like(ca)
    pts = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    r = ranges.reshape(-1)
    keep = (r > min_range) & (r < max_range)
    pts = pts[keep]
    homo = np.hstack([pts, np.ones((pts.shape[0], 1), dtype=pts.dtype)])
    world = (homo @ pose.T)[:, :3]
    return world, keep.sum()


# ---------------------------------------------------------------------------
# triangles, rays, inside tests
# ---------------------------------------------------------------------------

def barycentric_interpolate_colors(points, a, b, c, colors):
    v0 = b - a
    v1 = c - a
    v2 = points - a
    d00 = v0 @ v0
    d01 = v0 @ v1
    d11 = v1 @ v1
    d20 = v2 @ v0
    d21 = v2 @ v1
    denom = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / denom
    w = (d00 * d21 - d01 * d20) / denom
    u = 1.0 - v - w
    bary = np.stack([u, v, w], axis=-1)
    inside = (u >= 0) & (v >= 0) & (w >= 0)
    shaded = bary[inside] @ colors
    return shaded, int(inside.sum())


def ray_spheres_nearest_hit(origins, dirs, centers, radii, t_min=1e-6):
    d = dirs / np.linalg.norm(dirs, axis=-1, keepdims=True)
    oc = origins[:, None, :] - centers[None, :, :]
    b = np.einsum('nsk,nk->ns', oc, d)
    c = np.sum(oc * oc, axis=-1) - radii[None, :] ** 2
    disc = b * b - c
    hit = disc > 0
    sq = np.sqrt(np.where(hit, disc, 0.0))
    t0 = -b - sq
    t1 = -b + sq
    t = np.where(t0 > t_min, t0, t1)
    hit &= t > t_min
    t = np.where(hit, t, 1e30)
    idx = np.argmin(t, axis=1)
    t_best = np.take_along_axis(t, idx[:, None], axis=1)[:, 0]
    any_hit = hit.any(axis=1)
    pos = origins + d * np.where(any_hit, t_best, 0.0)[:, None]
    normals = (pos - centers[idx]) / radii[idx][:, None]
    normals = np.where(any_hit[:, None], normals, 0.0)
    return np.where(any_hit, idx, -1), np.where(any_hit, t_best, -1.0), normals


def ray_plane_intersections(origins, dirs, plane_point, plane_normal, max_t=100.0):
    n = plane_normal / np.linalg.norm(plane_normal)
    denom = dirs @ n
    valid = np.abs(denom) > 1e-8
    t = ((plane_point - origins) @ n) / np.where(valid, denom, 1.0)
    hit = valid & (t > 0) & (t < max_t)
    pts = origins + t[:, None] * dirs
    return pts[hit], int(hit.sum())


def ray_triangle_moller_trumbore(origins, dirs, v0, v1, v2, eps=1e-9):
    e1 = v1 - v0
    e2 = v2 - v0
    pvec = np.cross(dirs, e2)
    det = pvec @ e1
    ok = np.abs(det) > eps
    inv_det = 1.0 / np.where(ok, det, 1.0)
    tvec = origins - v0
    u = np.einsum('ij,ij->i', tvec, pvec) * inv_det
    qvec = np.cross(tvec, e1)
    v = np.einsum('ij,ij->i', dirs, qvec) * inv_det
    t = (qvec @ e2) * inv_det
    hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > eps)
    return np.where(hit, t, -1.0), np.stack([u, v], axis=-1)[hit]


def points_in_polygon_crossing(points, polygon):
    x = points[:, 0]
    y = points[:, 1]
    inside = np.zeros(points.shape[0], dtype=bool)
    n = polygon.shape[0]
    j = n - 1
    for i in range(n):
        xi, yi = float(polygon[i, 0]), float(polygon[i, 1])
        xj, yj = float(polygon[j, 0]), float(polygon[j, 1])
        crosses = (yi > y) != (yj > y)
        x_at = (xj - xi) * (y - yi) / (yj - yi) + xi
        inside ^= crosses & (x < x_at)
        j = i
    return inside


def segment_intersection_counts(seg_a, seg_b):
    p = seg_a[:, None, 0, :]
    p2 = seg_a[:, None, 1, :]
    q = seg_b[None, :, 0, :]
    q2 = seg_b[None, :, 1, :]
    o1 = _orient(p, p2, q)
    o2 = _orient(p, p2, q2)
    o3 = _orient(q, q2, p)
    o4 = _orient(q, q2, p2)
    hits = (o1 * o2 < 0) & (o3 * o4 < 0)
    per_a = hits.sum(axis=1)
    per_b = hits.sum(axis=0)
    return per_a, per_b, int(hits.sum())


def point_segment_min_distance(points, seg_start, seg_end):
    d = seg_end - seg_start
    len2 = np.sum(d * d, axis=-1)
    rel = points[:, np.newaxis, :] - seg_start[np.newaxis, :, :]
    t = np.sum(rel * d[np.newaxis], axis=-1) / len2
    t = np.clip(t, 0.0, 1.0)
    closest = seg_start[None] + t[..., None] * d[None]
    dist = np.linalg.norm(points[:, None, :] - closest, axis=-1)
    idx = np.argmin(dist, axis=1)
    return np.min(dist, axis=1), idx


def points_to_boxes_signed_distance(points, box_min, box_max):
    center = 0.5 * (box_min + box_max)
    half = 0.5 * (box_max - box_min)
    q = np.abs(points[:, None, :] - center[None, :, :]) - half[None, :, :]
    outside = np.linalg.norm(np.maximum(q, 0), axis=-1)
    inside = np.minimum(np.max(q, axis=-1), 0)
    sdf = outside + inside
    return sdf.min(axis=1)


# ---------------------------------------------------------------------------
# bounding volumes, areas, hulls
# ---------------------------------------------------------------------------

def bounding_boxes_per_label(points, labels, n_labels):
    d = points.shape[1]
    lo = np.full((n_labels, d), np.inf, dtype=points.dtype)
    hi = np.full((n_labels, d), -np.inf, dtype=points.dtype)
    np.minimum.at(lo, labels, points)
    np.maximum.at(hi, labels, points)
    present = np.isfinite(lo[:, 0])
    lo = np.where(present[:, None], lo, 0)
    hi = np.where(present[:, None], hi, 0)
    volume = np.prod(hi - lo, axis=1)
    return lo, hi, volume


def oriented_bbox_pca(points):
    mean = points.mean(axis=0, keepdims=True)
    centered = points - mean
    cov = centered.T @ centered / points.shape[0]
    evals, evecs = np.linalg.eigh(cov)
    proj = centered @ evecs
    extents = proj.max(axis=0) - proj.min(axis=0)
    return np.sort(extents), float(np.prod(extents)), evals


def batched_polygon_areas(polys):
    x = polys[..., 0]
    y = polys[..., 1]
    xn = np.roll(x, -1, axis=-1)
    yn = np.roll(y, -1, axis=-1)
    cross = x * yn - xn * y
    signed = 0.5 * np.sum(cross, axis=-1)
    cx = np.sum((x + xn) * cross, axis=-1) / (6.0 * signed)
    cy = np.sum((y + yn) * cross, axis=-1) / (6.0 * signed)
    return np.abs(signed), np.stack([cx, cy], axis=-1)


def monotone_chain_hull_area(points):
    order = np.lexsort((points[:, 1], points[:, 0]))
    pts = points[order].tolist()
    lower = []
    for p in pts:
        while len(lower) >= 2 and _cross2(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper = []
    for p in reversed(pts):
        while len(upper) >= 2 and _cross2(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = np.array(lower[:-1] + upper[:-1])
    x = hull[:, 0]
    y = hull[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    perimeter = np.sum(np.linalg.norm(hull - np.roll(hull, -1, axis=0), axis=1))
    return area, perimeter, hull.shape[0]


# ---------------------------------------------------------------------------
# neighbours, grids, voxels
# ---------------------------------------------------------------------------

def knn_bruteforce_argpartition(queries, refs, k=8):
    d2 = (np.sum(queries ** 2, axis=1)[:, None]
          - 2.0 * queries @ refs.T
          + np.sum(refs ** 2, axis=1)[None, :])
    idx = np.argpartition(d2, k, axis=1)[:, :k]
    part = np.take_along_axis(d2, idx, axis=1)
    order = np.argsort(part, axis=1)
    idx = np.take_along_axis(idx, order, axis=1)
    dist = np.sqrt(np.maximum(np.take_along_axis(part, order, axis=1), 0.0))
    return idx, dist


def grid_hash_binning(points, cell_size=0.5):
    ij = np.floor(points[:, :2] / cell_size).astype(np.int64)
    ij -= ij.min(axis=0)
    nx = int(ij[:, 0].max()) + 1
    keys = ij[:, 1] * nx + ij[:, 0]
    uniq, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    mean_z = np.bincount(inverse, weights=points[:, 2]) / counts
    max_z = np.full(uniq.shape[0], -np.inf)
    np.maximum.at(max_z, inverse, points[:, 2])
    return uniq, counts, mean_z, max_z


def voxel_downsample_mean(points, colors, voxel_size=0.05):
    keys = np.floor(points / voxel_size).astype(np.int64)
    uniq, inverse, counts = np.unique(keys, axis=0, return_inverse=True,
                                      return_counts=True)
    inverse = inverse.reshape(-1)
    m = uniq.shape[0]
    centroid = np.stack([np.bincount(inverse, weights=points[:, k], minlength=m)
                         for k in range(3)], axis=-1) / counts[:, None]
    col_sum = np.zeros((m, colors.shape[1]))
    np.add.at(col_sum, inverse, colors)
    return centroid, col_sum / counts[:, None], counts


def occupancy_grid_counts(points, origin, resolution, width, height):
    cells = np.floor((points - origin) / resolution).astype(np.int64)
    cx = cells[:, 0]
    cy = cells[:, 1]
    inb = (cx >= 0) & (cx < width) & (cy >= 0) & (cy < height)
    flat = cy[inb] * width + cx[inb]
    grid = np.bincount(flat, minlength=width * height).reshape(height, width)
    occupied = grid > 0
    return grid, float(occupied.mean())


# ---------------------------------------------------------------------------
# meshes
# ---------------------------------------------------------------------------

def triangle_face_normals_areas(vertices, faces):
    tri = vertices[faces]
    e1 = tri[:, 1] - tri[:, 0]
    e2 = tri[:, 2] - tri[:, 0]
    cr = np.cross(e1, e2)
    norm = np.linalg.norm(cr, axis=-1, keepdims=True)
    normals = cr / np.maximum(norm, 1e-12)
    areas = 0.5 * norm[..., 0]
    return normals, areas, areas.sum()


def vertex_normals_add_at(vertices, faces):
    v0 = vertices[faces[:, 0]]
    v1 = vertices[faces[:, 1]]
    v2 = vertices[faces[:, 2]]
    fn = np.cross(v1 - v0, v2 - v0)
    vn = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(vn, faces[:, k], fn)
    return _normalize(vn)


def mesh_area_volume_centroid(vertices, faces):
    v0 = vertices[faces[:, 0]]
    v1 = vertices[faces[:, 1]]
    v2 = vertices[faces[:, 2]]
    cr = np.cross(v1, v2)
    signed6 = np.einsum('ij,ij->i', v0, cr)
    volume = signed6.sum() / 6.0
    centroid = ((v0 + v1 + v2) * signed6[:, None]).sum(axis=0) / (24.0 * volume)
    area = 0.5 * np.linalg.norm(np.cross(v1 - v0, v2 - v0), axis=-1).sum()
    return area, volume, centroid


# ---------------------------------------------------------------------------
# GIS
# ---------------------------------------------------------------------------

def great_circle_distance_bearing(lat1, lon1, lat2, lon2, radius=6371.0):
    phi1 = np.radians(lat1)
    phi2 = np.radians(lat2)
    dphi = phi2 - phi1
    dlam = np.radians(lon2 - lon1)
    a = np.sin(dphi / 2) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(dlam / 2) ** 2
    dist = 2 * radius * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
    y = np.sin(dlam) * np.cos(phi2)
    x = np.cos(phi1) * np.sin(phi2) - np.sin(phi1) * np.cos(phi2) * np.cos(dlam)
    bearing = np.degrees(np.arctan2(y, x))
    return dist, np.sin(np.radians(bearing)), np.cos(np.radians(bearing))


def web_mercator_tiles(lat, lon, zoom=12):
    R = 6378137.0
    lat_r = np.radians(lat)
    x = R * np.radians(lon)
    y = R * np.log(np.tan(np.pi / 4 + lat_r / 2))
    n = 2 ** zoom
    tx = np.floor((lon + 180.0) / 360.0 * n).astype(np.int64)
    ty = np.floor((1.0 - np.arcsinh(np.tan(lat_r)) / np.pi) / 2.0 * n).astype(np.int64)
    tx = np.clip(tx, 0, n - 1)
    ty = np.clip(ty, 0, n - 1)
    return np.column_stack([x, y]), tx, ty


def douglas_peucker_mask(path, epsilon):
    n = path.shape[0]
    keep = np.zeros(n, dtype=bool)
    keep[0] = True
    keep[-1] = True
    stack = [(0, n - 1)]
    while stack:
        s, e = stack.pop()
        if e <= s + 1:
            continue
        seg = path[e] - path[s]
        rel = path[s + 1:e] - path[s]
        seg_len = math.hypot(float(seg[0]), float(seg[1]))
        d = np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / seg_len
        i = int(np.argmax(d))
        if d[i] > epsilon:
            idx = s + 1 + i
            keep[idx] = True
            stack.append((s, idx))
            stack.append((idx, e))
    simplified = path[keep]
    return keep, simplified


# ---------------------------------------------------------------------------
# robotics
# ---------------------------------------------------------------------------

def planar_arm_forward_kinematics(joint_angles, link_lengths):
    cum = np.cumsum(joint_angles, axis=-1)
    lc = link_lengths * np.cos(cum)
    ls = link_lengths * np.sin(cum)
    x = np.cumsum(lc, axis=-1)
    y = np.cumsum(ls, axis=-1)
    joints = np.stack([x, y], axis=-1)
    ee = joints[:, -1]
    jac_x = -np.cumsum(ls[..., ::-1], axis=-1)[..., ::-1]
    jac_y = np.cumsum(lc[..., ::-1], axis=-1)[..., ::-1]
    jac = np.stack([jac_x, jac_y], axis=-2)
    manip = np.sqrt(np.abs(np.linalg.det(jac @ np.swapaxes(jac, -1, -2))))
    return joints, np.linalg.norm(ee, axis=-1), manip


# ---------------------------------------------------------------------------
# rasterisation and images
# ---------------------------------------------------------------------------

def rasterize_points_zbuffer(points_2d, depths, width, height):
    px = np.clip(np.floor(points_2d[:, 0]).astype(np.int64), 0, width - 1)
    py = np.clip(np.floor(points_2d[:, 1]).astype(np.int64), 0, height - 1)
    flat = py * width + px
    far = depths.max() + 1
    zbuf = np.full(height * width, far, dtype=depths.dtype)
    np.minimum.at(zbuf, flat, depths)
    return zbuf.reshape(height, width)


def homography_warp_nearest(image, H, out_h, out_w):
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:out_h, 0:out_w]
    pts = np.stack([xs.ravel(), ys.ravel(), np.ones(out_h * out_w)], axis=0)
    src = np.linalg.inv(H) @ pts
    sx = np.rint(src[0] / src[2]).astype(np.intp)
    sy = np.rint(src[1] / src[2]).astype(np.intp)
    valid = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
    out = np.zeros((out_h * out_w,) + image.shape[2:], dtype=image.dtype)
    out[valid] = image[sy[valid], sx[valid]]
    return out.reshape((out_h, out_w) + image.shape[2:])


def bilinear_sample_floor_ceil(image, xs, ys):
    h, w = image.shape
    x0 = np.floor(xs).astype(np.int64)
    y0 = np.floor(ys).astype(np.int64)
    x1 = np.minimum(np.ceil(xs).astype(np.int64), w - 1)
    y1 = np.minimum(np.ceil(ys).astype(np.int64), h - 1)
    wx = xs - x0
    wy = ys - y0
    top = image[y0, x0] * (1 - wx) + image[y0, x1] * wx
    bot = image[y1, x0] * (1 - wx) + image[y1, x1] * wx
    return top * (1 - wy) + bot * wy


# ---------------------------------------------------------------------------
# argument construction
# ---------------------------------------------------------------------------

def _grid_mesh(rng, nx, ny):
    xs, ys = np.meshgrid(np.linspace(0, 1, nx), np.linspace(0, 1, ny), indexing='xy')
    zs = 0.1 * np.sin(6 * xs) * np.cos(5 * ys) + 0.01 * rng.standard_normal(xs.shape)
    verts = np.column_stack([xs.ravel(), ys.ravel(), zs.ravel()])
    idx = np.arange(nx * ny).reshape(ny, nx)
    a = idx[:-1, :-1].ravel()
    b = idx[:-1, 1:].ravel()
    c = idx[1:, :-1].ravel()
    d = idx[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)], axis=0)
    return verts, faces


def _uv_sphere(n_lat, n_lon, radius=1.0):
    theta = np.linspace(0, np.pi, n_lat + 1)[1:-1]
    phi = np.linspace(0, 2 * np.pi, n_lon, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing='ij')
    ring = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], -1).reshape(-1, 3)
    verts = np.concatenate([[[0.0, 0.0, 1.0]], ring, [[0.0, 0.0, -1.0]]]) * radius
    verts = verts + np.array([0.3, -0.2, 0.5])
    faces = []
    top, bottom = 0, verts.shape[0] - 1
    for j in range(n_lon):
        jn = (j + 1) % n_lon
        faces.append([top, 1 + j, 1 + jn])
    for i in range(n_lat - 2):
        for j in range(n_lon):
            jn = (j + 1) % n_lon
            a = 1 + i * n_lon + j
            b = 1 + i * n_lon + jn
            c = 1 + (i + 1) * n_lon + j
            d = 1 + (i + 1) * n_lon + jn
            faces.append([a, c, d])
            faces.append([a, d, b])
    last = 1 + (n_lat - 2) * n_lon
    for j in range(n_lon):
        jn = (j + 1) % n_lon
        faces.append([last + j, bottom, last + jn])
    return verts, np.array(faces, dtype=np.int64)


def _make_args():
    rng = np.random.default_rng(20240917)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    # transforms and rotations
    T = np.eye(4, dtype=np.float32)
    T[:3, :3] = _euler_zyx_matrix(0.4, -0.2, 1.1).astype(np.float32) * np.float32(1.5)
    T[:3, 3] = [1.0, -2.0, 0.5]
    add(transform_point_cloud_homogeneous,
        rng.standard_normal((200000, 3)).astype(np.float32), T)
    add(euler_rotate_and_bounds,
        rng.uniform(-5, 5, (100000, 3)).astype(np.float32), 0.7, -0.3, 0.25,
        np.array([0.5, 1.5, -2.0], dtype=np.float32))
    add(axis_angle_matrices_apply,
        rng.standard_normal((20000, 3)).astype(np.float32),
        rng.uniform(-np.pi, np.pi, 20000).astype(np.float32),
        rng.standard_normal((20000, 3)).astype(np.float32))
    q = np.column_stack([np.ones(400), 0.05 * rng.standard_normal((400, 3))])
    add(trajectory_pose_compose, q, rng.uniform(0.1, 0.5, (400, 3)),
        np.array([0.2, 0.0, 0.1]))
    add(imu_quaternion_integrate, rng.standard_normal((100, 256, 3)) * 0.8, 0.01)
    src = rng.standard_normal((200, 3))
    R_true = _euler_zyx_matrix(0.9, 0.35, -0.6)
    dst = src @ R_true.T + np.array([1.0, -0.5, 2.0]) + 0.01 * rng.standard_normal((200, 3))
    add(kabsch_rigid_align, src, dst)

    # cameras
    add(look_at_frustum_cull, rng.uniform(-25, 25, (100000, 3)),
        np.array([3.0, -30.0, 6.0]), np.array([0.2, 0.1, -0.3]), np.array([0.0, 0.0, 1.0]),
        40.0, 1.6, 0.1, 45.0)
    K = np.array([[525.3, 0.0, 319.7], [0.0, 524.1, 241.3], [0.0, 0.0, 1.0]])
    pc = np.column_stack([rng.uniform(-3, 3, 100000), rng.uniform(-2, 2, 100000),
                          rng.uniform(-1, 8, 100000)])
    add(project_to_pixel_histogram, pc, K, 640, 480)
    c2w = np.eye(4, dtype=np.float32)
    c2w[:3, :3] = _euler_zyx_matrix(0.3, 0.2, -0.1).astype(np.float32)
    c2w[:3, 3] = [0.5, 1.0, 2.0]
    add(camera_rays_world, 320, 240, 280.5, 281.25, c2w)
    rows, cols = 64, 1024
    ranges = rng.uniform(0.2, 95.0, (rows, cols)).astype(np.float32)
    az = np.linspace(-np.pi, np.pi, cols, endpoint=False).astype(np.float32)
    el = np.radians(np.linspace(-24.8, 2.0, rows)).astype(np.float32)
    pose = np.eye(4, dtype=np.float32)
    pose[:3, :3] = _euler_zyx_matrix(1.2, 0.01, -0.02).astype(np.float32)
    pose[:3, 3] = [10.0, -4.0, 1.8]
    add(lidar_scan_to_world, ranges, az, el, pose, 0.5, 80.0)

    # triangles, rays, inside tests
    add(barycentric_interpolate_colors, rng.uniform(-1, 2, (100000, 2)),
        np.array([0.1, 0.05]), np.array([1.3, 0.2]), np.array([0.4, 1.45]),
        rng.uniform(0, 1, (3, 3)))
    n_rays = 20000
    origins = np.column_stack([rng.uniform(-5, 5, n_rays), rng.uniform(-5, 5, n_rays),
                               np.full(n_rays, -20.0)])
    dirs = np.column_stack([0.1 * rng.standard_normal(n_rays), 0.1 * rng.standard_normal(n_rays),
                            np.ones(n_rays)])
    centers = np.column_stack([rng.uniform(-4, 4, 16), rng.uniform(-4, 4, 16), rng.uniform(-3, 3, 16)])
    add(ray_spheres_nearest_hit, origins, dirs, centers, rng.uniform(0.3, 1.2, 16))
    add(ray_plane_intersections, rng.standard_normal((200000, 3)),
        rng.standard_normal((200000, 3)), np.array([0.0, 0.0, 1.5]),
        np.array([0.1, -0.2, 1.0]), 50.0)
    add(ray_triangle_moller_trumbore, origins, dirs,
        np.array([-3.1, -2.7, 0.3]), np.array([3.4, -1.9, 0.8]), np.array([0.2, 3.6, -0.4]))
    ang = np.sort(rng.uniform(0, 2 * np.pi, 40))
    rad = rng.uniform(0.5, 1.0, 40)
    poly = np.column_stack([rad * np.cos(ang), rad * np.sin(ang)])
    add(points_in_polygon_crossing, rng.uniform(-1.1, 1.1, (20000, 2)), poly)
    seg_a = rng.uniform(0, 10, (400, 2, 2))
    seg_b = rng.uniform(0, 10, (300, 2, 2))
    add(segment_intersection_counts, seg_a, seg_b)
    add(point_segment_min_distance, rng.uniform(0, 10, (3000, 2)),
        rng.uniform(0, 10, (64, 2)), rng.uniform(0, 10, (64, 2)))
    bmin = rng.uniform(-5, 4, (20, 3)).astype(np.float32)
    add(points_to_boxes_signed_distance, rng.uniform(-6, 6, (10000, 3)).astype(np.float32),
        bmin, bmin + rng.uniform(0.2, 2.0, (20, 3)).astype(np.float32))

    # bounding volumes, areas, hulls
    add(bounding_boxes_per_label, rng.standard_normal((50000, 3)).astype(np.float32),
        rng.integers(0, 64, 50000), 64)
    add(oriented_bbox_pca, rng.standard_normal((50000, 3)) * np.array([3.0, 1.0, 0.3])
        @ _euler_zyx_matrix(0.5, 0.2, 0.1).T)
    ang = np.sort(rng.uniform(0, 2 * np.pi, (5000, 12)), axis=1)
    rad = rng.uniform(0.5, 1.5, (5000, 12))
    polys = np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=-1).astype(np.float32)
    add(batched_polygon_areas, polys)
    add(monotone_chain_hull_area, rng.standard_normal((3000, 2)))

    # neighbours, grids, voxels
    add(knn_bruteforce_argpartition, rng.uniform(0, 1, (500, 3)),
        rng.uniform(0, 1, (2000, 3)), 8)
    add(grid_hash_binning, rng.uniform(0, 50, (100000, 3)), 0.5)
    add(voxel_downsample_mean, rng.uniform(0, 1, (25000, 3)),
        rng.uniform(0, 1, (25000, 3)), 0.05)
    add(occupancy_grid_counts, rng.standard_normal((200000, 2)) * 8.0,
        np.array([-20.0, -20.0]), 0.1, 400, 400)

    # meshes
    verts, faces = _grid_mesh(rng, 200, 200)
    add(triangle_face_normals_areas, verts, faces)
    add(vertex_normals_add_at, verts.astype(np.float32), faces)
    sv, sf = _uv_sphere(60, 120, 1.7)
    add(mesh_area_volume_centroid, sv, sf)

    # GIS
    add(great_circle_distance_bearing, rng.uniform(-70, 70, 100000), rng.uniform(-180, 180, 100000),
        rng.uniform(-70, 70, 100000), rng.uniform(-180, 180, 100000))
    add(web_mercator_tiles, rng.uniform(-85, 85, 1000000), rng.uniform(-180, 180, 1000000), 14)
    walk = np.cumsum(rng.standard_normal((2000, 2)), axis=0)
    add(douglas_peucker_mask, walk, 2.5)

    # robotics
    add(planar_arm_forward_kinematics, rng.uniform(-np.pi, np.pi, (20000, 6)),
        np.array([1.0, 0.8, 0.6, 0.5, 0.3, 0.2]))

    # raster / images
    add(rasterize_points_zbuffer,
        (rng.uniform(0, 1, (200000, 2)) * np.array([640, 480])).astype(np.float32),
        rng.uniform(0.5, 50.0, 200000).astype(np.float32), 640, 480)
    img = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
    H = np.array([[1.07, 0.13, -12.3], [-0.09, 0.96, 8.7], [0.00031, -0.00022, 1.0]])
    add(homography_warp_nearest, img, H, 240, 320)
    fimg = rng.standard_normal((512, 512)).astype(np.float32)
    add(bilinear_sample_floor_ceil, fimg,
        rng.uniform(0, 511, 200000).astype(np.float32),
        rng.uniform(0, 511, 200000).astype(np.float32))

    return progs


progs = _make_args()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    names = [name for name, _, _ in progs]
    assert len(names) == len(set(names)), "duplicate program names"
    for name, fn, args in progs:
        assert name == fn.__name__
        result = fn(*args)
        assert result is not None, name
        print(name)
    print("count:", len(progs))
